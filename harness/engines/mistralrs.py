"""mistral.rs (names from its docs' guide 'Observability': docs/engines.md)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, MetricName, Quirk, SignalSpec

_SRC = "mistral.rs's docs, guide 'Observability' (deploy section; docs/engines.md, mistral.rs)"

RECORD = EngineRecord(
    name="mistralrs",
    title="mistral.rs",
    signals=(
        # labelled by reason (stop, length, canceled, error, ...): summed
        SignalSpec(
            "requests",
            (
                MetricName(
                    "mistralrs_sequences_completed_total", "sequences", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "prefix_hits",
            (MetricName("mistralrs_prefix_cache_hits_total", "sequences", "counter", source=_SRC),),
        ),
        SignalSpec(
            "prefix_lookups",
            (
                MetricName(
                    "mistralrs_prefix_cache_lookups_total", "sequences", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_drafts",
            (
                MetricName(
                    "mistralrs_speculative_drafts_total", "sequences", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_draft_tokens",
            (
                MetricName(
                    "mistralrs_speculative_draft_tokens_proposed_total",
                    "tokens",
                    "counter",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "spec_accepted_tokens",
            (
                MetricName(
                    "mistralrs_speculative_draft_tokens_accepted_total",
                    "tokens",
                    "counter",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "preemptions",
            (MetricName("mistralrs_paged_preemptions_total", "sequences", "counter", source=_SRC),),
        ),
        SignalSpec(
            "kv_usage",
            (MetricName("mistralrs_kv_cache_blocks_used", "blocks", "gauge", source=_SRC),),
        ),
        SignalSpec(
            "e2e_seconds",
            (MetricName("http_request_duration_seconds", "seconds", "histogram", source=_SRC),),
        ),
        SignalSpec(
            "ttft_seconds",
            (
                MetricName(
                    "mistralrs_time_to_first_token_seconds", "seconds", "histogram", source=_SRC
                ),
            ),
        ),
    ),
    detect=Detect(metric_prefixes=("mistralrs_",)),
    metrics_on="on unless started with --disable-metrics (then GET /metrics answers 503)",
    ready_routes=("/health", "/v1/models"),
    config_routes=("/v1/models",),
    quirks=(Quirk("ignores stream_options and seed", verified=False),),
    absent=(
        ("prompt_tokens", "mistral.rs counts tokens processed (prefill plus decode) as one figure"),
        (
            "generation_tokens",
            "mistral.rs counts tokens processed (prefill plus decode) as one figure",
        ),
        ("cached_prompt_tokens", "mistral.rs counts prefix-cache hits in sequences, not tokens"),
    ),
)
