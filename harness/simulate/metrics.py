"""The simulator's small Prometheus ``/metrics``, in vLLM's metric names.

Counts what the engine already decides: prompt tokens looked up in the prefix
cache and the cached ones (``Plan.cached_tokens``, whole 16-token blocks), prompt
and generated tokens, finished requests. No speculative decoding and no
preemptions are simulated, so those counters stay at zero; the KV-cache gauge
is 0. Deterministic: the same requests in the same order give the same numbers.
``process_start_time_seconds`` (as prometheus_client's process collector and vLLM
expose it) is when this simulator started, in seconds since the epoch: a restarted
simulator is a different server (the quality answer cache keys on it).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness import __version__
from harness.simulate.config import SimConfig

ENGINE_NAME = "harness-simulate"
CONFIG_INFO = "harness_sim:config_info"
# the request log's knobs say where the simulator writes, not how it serves
_NOT_CONFIG = ("log_file", "log_bodies", "log_limit")


@dataclass
class SimCounters:
    prefix_cache_queries: int = 0
    prefix_cache_hits: int = 0
    prompt_tokens: int = 0
    generation_tokens: int = 0
    requests: int = 0
    e2e_sum_s: float = 0.0  # vLLM's e2e request latency histogram: sum and count
    e2e_count: int = 0

    def finished(self, e2e_s: float) -> None:
        """A generation answered: from its handler's start to its last byte written."""
        self.e2e_sum_s += e2e_s
        self.e2e_count += 1

    def record(self, prompt_tokens: int, cached_tokens: int, generated: int) -> None:
        self.prefix_cache_queries += prompt_tokens
        self.prefix_cache_hits += cached_tokens
        self.prompt_tokens += prompt_tokens
        self.generation_tokens += generated
        self.requests += 1

    def clear(self) -> None:
        self.prefix_cache_queries = self.prefix_cache_hits = 0
        self.prompt_tokens = self.generation_tokens = self.requests = 0
        self.e2e_sum_s, self.e2e_count = 0.0, 0


def _label(value: object) -> str:
    """A knob as vLLM writes a setting into a label (``str(value)``), escaped."""
    text = ",".join(str(v) for v in value) if isinstance(value, tuple) else str(value)
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def config_info(cfg: SimConfig) -> list[str]:
    """The simulator's configuration the way vLLM tells its own (``vllm:cache_config_info``):
    a gauge set to 1 whose labels are its knobs (every serving knob, the log's left out)."""
    labels = ",".join(f'{name}="{_label(value)}"' for name, value in cfg if name not in _NOT_CONFIG)
    return [
        f"# HELP {CONFIG_INFO} The simulator's configuration: one label per knob.",
        f"# TYPE {CONFIG_INFO} gauge",
        f"{CONFIG_INFO}{{{labels}}} 1.0",
    ]


def exposition(
    c: SimCounters, model: str, cfg: SimConfig | None = None, started_at: float | None = None
) -> str:
    """Prometheus text format 0.0.4, the way vLLM labels its samples; its knobs as
    ``harness_sim:config_info``; ``started_at`` (epoch seconds) as
    ``process_start_time_seconds``."""
    lab = f'{{engine="0",model_name="{model}"}}'
    rows = [
        ("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens.", c.prefix_cache_queries),
        ("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.", c.prefix_cache_hits),
        ("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.", c.prompt_tokens),
        ("vllm:generation_tokens", "counter", "Number of generation tokens processed.", c.generation_tokens),
        ("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.", 0),
        ("vllm:request_success", "counter", "Count of successfully processed requests.", c.requests),
    ]  # fmt: skip
    lines: list[str] = []
    for name, kind, text, value in rows:
        lines += [f"# HELP {name}_total {text}", f"# TYPE {name}_total {kind}"]
        lines.append(f"{name}_total{lab} {float(value)}")
    lines += [
        "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
        "# TYPE vllm:kv_cache_usage_perc gauge",
        f"vllm:kv_cache_usage_perc{lab} 0.0",
        "# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.",
        "# TYPE vllm:e2e_request_latency_seconds histogram",
        f'vllm:e2e_request_latency_seconds_bucket{{engine="0",le="+Inf",model_name="{model}"}} '
        f"{float(c.e2e_count)}",
        f"vllm:e2e_request_latency_seconds_count{lab} {float(c.e2e_count)}",
        f"vllm:e2e_request_latency_seconds_sum{lab} {c.e2e_sum_s}",
        "# HELP harness_simulate_info The simulator's engine and version.",
        "# TYPE harness_simulate_info gauge",
        f'harness_simulate_info{{engine="{ENGINE_NAME}",version="{__version__}"}} 1.0',
    ]
    if cfg is not None:
        lines += config_info(cfg)
    if started_at is not None:
        lines += [
            "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
            "# TYPE process_start_time_seconds gauge",
            f"process_start_time_seconds {started_at!r}",
        ]
    return "\n".join(lines) + "\n"
