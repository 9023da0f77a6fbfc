"""TensorRT-LLM's ``trtllm-serve`` (names from tensorrt_llm/metrics/collector.py at
commit 89fd9b74, unprefixed; the ``trtllm_`` spellings and the token counters were seen
only in third-party listings: unverified)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, Kind, MetricName, Quirk, SignalSpec, Unit

_SRC = "tensorrt_llm/metrics/collector.py"


def _n(base: str, unit: Unit, kind: Kind, *, in_source: bool) -> tuple[MetricName, ...]:
    """The unprefixed name of collector.py, then the later ``trtllm_`` / ``trtllm:`` ones."""
    plain = (
        (MetricName(base, unit, kind, "collector.py (unprefixed)", source=_SRC),)
        if in_source
        else ()
    )
    return (
        *plain,
        MetricName(f"trtllm_{base}", unit, kind, "later versions", verified=False),
        MetricName(f"trtllm:{base}", unit, kind, "some versions", verified=False),
    )


RECORD = EngineRecord(
    name="trtllm",
    title="TensorRT-LLM",
    signals=(
        SignalSpec("requests", _n("request_success_total", "requests", "counter", in_source=True)),
        SignalSpec(
            "prompt_tokens", _n("prompt_tokens_total", "tokens", "counter", in_source=False)
        ),
        SignalSpec(
            "generation_tokens", _n("generation_tokens_total", "tokens", "counter", in_source=False)
        ),
        SignalSpec(
            "cached_prompt_tokens",
            _n("prompt_cached_tokens_total", "tokens", "counter", in_source=False),
        ),
        SignalSpec(
            "prefix_hit_rate", _n("kv_cache_hit_rate", "fraction", "gauge", in_source=False)
        ),
        SignalSpec(
            "spec_draft_tokens",
            _n("spec_decode_drafted_tokens_total", "tokens", "counter", in_source=False),
        ),
        SignalSpec(
            "spec_accepted_tokens",
            _n("spec_decode_accepted_tokens_total", "tokens", "counter", in_source=False),
        ),
        SignalSpec("kv_usage", _n("kv_cache_utilization", "fraction", "gauge", in_source=False)),
        SignalSpec(
            "e2e_seconds", _n("e2e_request_latency_seconds", "seconds", "histogram", in_source=True)
        ),
        SignalSpec(
            "ttft_seconds",
            _n("time_to_first_token_seconds", "seconds", "histogram", in_source=True),
        ),
    ),
    detect=Detect(metric_prefixes=("trtllm_", "trtllm:"), routes=()),
    metrics_path="/prometheus/metrics",
    metrics_on="set return_perf_metrics: true in the options file (its /metrics is JSON iteration stats)",
    ready_routes=("/health", "/v1/models"),
    config_routes=("/version", "/v1/models"),
    quirks=(
        Quirk("rejects unknown body fields", verified=False),
        Quirk("rejects stream_options unless stream is true", verified=False),
    ),
    absent=(
        (
            "prefix_hits",
            "TensorRT-LLM reports reused KV blocks in its JSON iteration stats, not as a counter",
        ),
        (
            "prefix_lookups",
            "TensorRT-LLM reports reused KV blocks in its JSON iteration stats, not as a counter",
        ),
        ("preemptions", "TensorRT-LLM serves no preemption counter"),
    ),
)
