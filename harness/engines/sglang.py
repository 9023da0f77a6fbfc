"""SGLang (names from python/sglang/srt/metrics/collector.py; its ``/get_server_info``)."""

from __future__ import annotations

from harness.engines.record import (
    Combine,
    Detect,
    EngineRecord,
    Kind,
    MetricName,
    Quirk,
    SignalSpec,
    Unit,
)

_SRC = "python/sglang/srt/metrics/collector.py"


def _n(base: str, unit: Unit, kind: Kind, combine: Combine = "sum") -> tuple[MetricName, ...]:
    """``sglang:NAME`` and the ``sglang_NAME`` spelling some versions serve (unverified)."""
    return (
        MetricName(f"sglang:{base}", unit, kind, combine=combine, source=_SRC),
        MetricName(f"sglang_{base}", unit, kind, "versions with '_' names", combine, False),
    )


RECORD = EngineRecord(
    name="sglang",
    title="SGLang",
    signals=(
        SignalSpec("requests", _n("num_requests_total", "requests", "counter")),
        SignalSpec(
            "prompt_tokens",
            _n("prompt_tokens_total", "tokens", "counter"),
            includes="unverified whether cached tokens are included",
        ),
        SignalSpec("generation_tokens", _n("generation_tokens_total", "tokens", "counter")),
        # labelled by cache_source (device/host/storage) in recent versions: summed
        SignalSpec("cached_prompt_tokens", _n("cached_tokens_total", "tokens", "counter")),
        SignalSpec("prefix_hit_rate", _n("cache_hit_rate", "fraction", "gauge", combine="max")),
        SignalSpec(
            "spec_acceptance_rate", _n("spec_accept_rate", "fraction", "gauge", combine="max")
        ),
        SignalSpec("kv_usage", _n("token_usage", "fraction", "gauge", combine="max")),
        SignalSpec("e2e_seconds", _n("e2e_request_latency_seconds", "seconds", "histogram")),
        SignalSpec("ttft_seconds", _n("time_to_first_token_seconds", "seconds", "histogram")),
    ),
    detect=Detect(
        metric_prefixes=("sglang:", "sglang_"),
        routes=(("/get_server_info", "tp_size", "version"),),
        owned_by=("sglang",),
    ),
    metrics_on="start the server with --enable-metrics",
    ready_routes=("/health", "/health_generate", "/v1/models"),
    config_routes=("/get_server_info", "/get_model_info", "/v1/models"),
    quirks=(Quirk("/v1/completions defaults max_tokens to 16", verified=False),),
    absent=(
        (
            "prefix_hits",
            "SGLang counts cached tokens (cached_tokens_total) and keeps a hit-rate gauge, no lookups",
        ),
        (
            "prefix_lookups",
            "SGLang counts cached tokens (cached_tokens_total) and keeps a hit-rate gauge, no lookups",
        ),
        (
            "spec_drafts",
            "SGLang keeps speculative-decoding gauges only (spec_accept_rate, spec_accept_length)",
        ),
        (
            "spec_draft_tokens",
            "SGLang keeps speculative-decoding gauges only (spec_accept_rate, spec_accept_length)",
        ),
        (
            "spec_accepted_tokens",
            "SGLang keeps speculative-decoding gauges only (spec_accept_rate, spec_accept_length)",
        ),
        (
            "preemptions",
            "SGLang counts retractions (num_retracted_reqs), which harness does not read",
        ),
    ),
)
