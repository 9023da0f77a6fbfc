"""The simulator's small Prometheus ``/metrics``, in vLLM's metric names, or SGLang's or
llama.cpp's (``--engine``: the dialects of docs/engines.md, so commands can be tested
against each engine's names; llama.cpp's prompt total leaves the cached tokens out and it
serves no request counter and no histograms, as llama-server does). LMDeploy's, TGI's and
mistral.rs's are written from their engine records (:func:`record_rows`: each signal's
first verified name, in its unit), so a wrong name in a record shows as a name absent from
that engine's real exposition (tests/fixtures/engines). TensorRT-LLM is not spoken: its
Prometheus text lives at another path (``/prometheus/metrics``).

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
from harness.engines.record import MetricName, Signal
from harness.engines.registry import by_name
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
    prefix_hit_requests: int = 0  # requests that found any block cached (mistral.rs's unit)
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
        self.prefix_hit_requests += cached_tokens > 0

    def clear(self) -> None:
        self.prefix_cache_queries = self.prefix_cache_hits = 0
        self.prompt_tokens = self.generation_tokens = self.requests = 0
        self.prefix_hit_requests = 0
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


def _rows(c: SimCounters, engine: str) -> list[tuple[str, str, str, float]]:
    """(sample name, type, help, value) of the counters and gauges in one engine's names."""
    if engine == "llamacpp":  # tools/server/server-task.cpp
        return [
            (
                "llamacpp:prompt_tokens_total",
                "counter",
                "Number of prompt tokens processed, excluding cached tokens",
                c.prompt_tokens - c.prefix_cache_hits,
            ),
            (
                "llamacpp:prompt_tokens_cached_total",
                "counter",
                "Number of prompt tokens reused from the cache",
                c.prefix_cache_hits,
            ),
            (
                "llamacpp:tokens_predicted_total",
                "counter",
                "Number of generation tokens processed",
                c.generation_tokens,
            ),
            ("llamacpp:requests_processing", "gauge", "Number of requests processing", 0),
            ("llamacpp:requests_deferred", "gauge", "Number of requests deferred", 0),
        ]
    if engine == "sglang":  # python/sglang/srt/metrics/collector.py
        return [
            (
                "sglang:prompt_tokens_total",
                "counter",
                "Number of prefill tokens processed.",
                c.prompt_tokens,
            ),
            (
                "sglang:generation_tokens_total",
                "counter",
                "Number of generation tokens processed.",
                c.generation_tokens,
            ),
            (
                "sglang:cached_tokens_total",
                "counter",
                "Number of cached prompt tokens.",
                c.prefix_cache_hits,
            ),
            ("sglang:num_requests_total", "counter", "Number of requests processed.", c.requests),
            ("sglang:token_usage", "gauge", "The token usage.", 0),
        ]
    return [
        ("vllm:prefix_cache_queries_total", "counter", "Prefix cache queries, in terms of number of queried tokens.", c.prefix_cache_queries),
        ("vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.", c.prefix_cache_hits),
        ("vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", c.prompt_tokens),
        ("vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", c.generation_tokens),
        ("vllm:num_preemptions_total", "counter", "Cumulative number of preemption from the engine.", 0),
        ("vllm:request_success_total", "counter", "Count of successfully processed requests.", c.requests),
        ("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", 0),
    ]  # fmt: skip


def _value(c: SimCounters, signal: Signal, m: MetricName, excludes: bool) -> float | None:
    """What the simulator counts for ``signal`` in ``m``'s unit; None: nothing it simulates
    (speculative decoding, TTFT histograms, configuration labels)."""
    seqs = m.unit == "sequences"
    return {
        "requests": c.requests,
        "prompt_tokens": c.prompt_tokens - (c.prefix_cache_hits if excludes else 0),
        "generation_tokens": c.generation_tokens,
        "cached_prompt_tokens": c.prefix_cache_hits,
        "prefix_hits": c.prefix_hit_requests if seqs else c.prefix_cache_hits,
        "prefix_lookups": c.requests if seqs else c.prefix_cache_queries,
        "prefix_hit_rate": c.prefix_cache_hits / c.prefix_cache_queries
        if c.prefix_cache_queries
        else 0.0,
        "preemptions": 0,
        "kv_usage": 0,
        "e2e_seconds": c.e2e_sum_s,
    }.get(signal)


def record_rows(c: SimCounters, engine: str) -> list[str]:
    """The exposition of an engine written from its record: per signal the simulator moves,
    the first name checked against the engine's source; a counter typed under its name
    without ``_total``, a histogram as one +Inf bucket with its _sum and _count."""
    rec = by_name(engine)
    assert rec is not None, engine  # DIALECTS names records only
    lines: list[str] = []
    for spec in rec.signals:
        m = next((n for n in spec.names if n.verified), None)
        value = None if m is None else _value(c, spec.signal, m, spec.includes.startswith("excl"))
        if m is None or value is None:
            continue
        if m.kind == "histogram":
            n = float(c.e2e_count if spec.signal == "e2e_seconds" else c.requests)
            lines += [f"# TYPE {m.name} histogram", f'{m.name}_bucket{{le="+Inf"}} {n}']
            lines += [f"{m.name}_sum {float(value)}", f"{m.name}_count {n}"]
        else:
            family = m.name.removesuffix("_total") if m.kind == "counter" else m.name
            lines += [f"# TYPE {family} {m.kind}", f"{m.name} {float(value)}"]
    return lines


def _e2e(c: SimCounters, engine: str, model: str) -> list[str]:
    """The e2e latency histogram (one +Inf bucket), in vLLM's or SGLang's name."""
    if engine == "llamacpp":
        return []
    name = f"{engine}:e2e_request_latency_seconds"
    lab = f'model_name="{model}"' if engine == "sglang" else f'engine="0",model_name="{model}"'
    return [
        f"# HELP {name} Histogram of e2e request latency in seconds.",
        f"# TYPE {name} histogram",
        f'{name}_bucket{{{lab},le="+Inf"}} {float(c.e2e_count)}',
        f"{name}_count{{{lab}}} {float(c.e2e_count)}",
        f"{name}_sum{{{lab}}} {c.e2e_sum_s}",
    ]


def exposition(
    c: SimCounters,
    model: str,
    cfg: SimConfig | None = None,
    started_at: float | None = None,
) -> str:
    """Prometheus text format 0.0.4, in the names and labels of ``cfg.engine`` (vLLM's by
    default); its knobs as ``harness_sim:config_info``; ``started_at`` (epoch seconds) as
    ``process_start_time_seconds``."""
    engine = cfg.dialect if cfg is not None else "vllm"
    lab = {"llamacpp": "", "sglang": f'{{model_name="{model}"}}'}.get(
        engine, f'{{engine="0",model_name="{model}"}}'
    )
    lines: list[str] = []
    if engine in ("vllm", "sglang", "llamacpp"):
        for name, kind, text, value in _rows(c, engine):
            lines += [f"# HELP {name} {text}", f"# TYPE {name} {kind}"]
            lines += [f"{name}{lab} {float(value)}"]
        lines += _e2e(c, engine, model)
    else:
        lines += record_rows(c, engine)
    lines += [
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
