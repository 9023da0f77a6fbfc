"""Text Generation Inference (names from TGI's docs, page 'Metrics', and router/src/;
routes from router/src/server.rs; docs/engines.md says where each comes from)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, MetricName, Quirk, SignalSpec

_SRC = "TGI's docs, page 'Metrics' (reference section; docs/engines.md, TGI)"

RECORD = EngineRecord(
    name="tgi",
    title="TGI",
    signals=(
        # served as ``tgi_request_success`` (TYPE counter); the Prometheus text parser
        # harness reads with names a counter's samples ``_total``
        SignalSpec(
            "requests",
            (MetricName("tgi_request_success_total", "requests", "counter", source=_SRC),),
        ),
        # per-request histograms: their _sum is the total over requests
        SignalSpec(
            "prompt_tokens",
            (MetricName("tgi_request_input_length", "tokens", "histogram", source=_SRC),),
            includes="a histogram of input lengths: its _sum is the tokens",
        ),
        SignalSpec(
            "generation_tokens",
            (MetricName("tgi_request_generated_tokens", "tokens", "histogram", source=_SRC),),
            includes="a histogram of generated tokens: its _sum is the tokens",
        ),
        SignalSpec(
            "e2e_seconds",
            (MetricName("tgi_request_duration", "seconds", "histogram", source=_SRC),),
        ),
    ),
    detect=Detect(
        metric_prefixes=("tgi_",),
        routes=(("/info", "model_id", "version"),),
    ),
    ready_routes=("/health", "/ping", "/info"),
    config_routes=("/info",),
    quirks=(Quirk("/ping exists, as on vLLM"),),
    absent=(
        ("cached_prompt_tokens", "TGI serves no prefix-cache metric"),
        ("prefix_hits", "TGI serves no prefix-cache metric"),
        ("prefix_lookups", "TGI serves no prefix-cache metric"),
        ("prefix_hit_rate", "TGI serves no prefix-cache metric"),
        (
            "spec_drafts",
            "TGI counts speculated tokens per request only (tgi_request_skipped_tokens)",
        ),
        (
            "spec_draft_tokens",
            "TGI counts speculated tokens per request only (tgi_request_skipped_tokens)",
        ),
        (
            "spec_accepted_tokens",
            "TGI counts speculated tokens per request only (tgi_request_skipped_tokens)",
        ),
        ("ttft_seconds", "TGI serves no time-to-first-token histogram"),
        ("kv_usage", "TGI serves no KV-cache usage gauge"),
        ("preemptions", "TGI serves no preemption counter"),
    ),
)
