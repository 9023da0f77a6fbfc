"""LMDeploy (names from lmdeploy/metrics/loggers.py; its docs' page 'Production Metrics': docs/engines.md)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, MetricName, SignalSpec

_SRC = "lmdeploy/metrics/loggers.py"

RECORD = EngineRecord(
    name="lmdeploy",
    title="LMDeploy",
    signals=(
        SignalSpec(
            "requests",
            (MetricName("lmdeploy:request_success_total", "requests", "counter", source=_SRC),),
        ),
        SignalSpec(
            "prompt_tokens",
            (MetricName("lmdeploy:prompt_tokens_total", "tokens", "counter", source=_SRC),),
            includes="unverified whether cached tokens are included",
        ),
        SignalSpec(
            "generation_tokens",
            (MetricName("lmdeploy:generation_tokens_total", "tokens", "counter", source=_SRC),),
        ),
        SignalSpec(
            "cached_prompt_tokens",
            (MetricName("lmdeploy:cached_tokens_total", "tokens", "counter", source=_SRC),),
        ),
        SignalSpec(
            "prefix_hit_rate",
            (
                MetricName(
                    "lmdeploy:prefix_cache_hit_rate",
                    "fraction",
                    "gauge",
                    combine="max",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "spec_drafts",
            (
                MetricName(
                    "lmdeploy:spec_decode_num_drafts_total", "requests", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_draft_tokens",
            (
                MetricName(
                    "lmdeploy:spec_decode_num_draft_tokens_total", "tokens", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_accepted_tokens",
            (
                MetricName(
                    "lmdeploy:spec_decode_num_accepted_tokens_total",
                    "tokens",
                    "counter",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "spec_acceptance_rate",
            (
                MetricName(
                    "lmdeploy:spec_decode_mean_accept_rate",
                    "fraction",
                    "gauge",
                    combine="max",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "kv_usage",
            (
                MetricName(
                    "lmdeploy:gpu_cache_usage_perc", "fraction", "gauge", combine="max", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "e2e_seconds",
            (
                MetricName(
                    "lmdeploy:e2e_request_latency_seconds", "seconds", "histogram", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "ttft_seconds",
            (
                MetricName(
                    "lmdeploy:time_to_first_token_seconds", "seconds", "histogram", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "info", (MetricName("lmdeploy:backend_config_info", "labels", "info", source=_SRC),)
        ),
    ),
    detect=Detect(metric_prefixes=("lmdeploy:",)),
    ready_routes=("/health", "/v1/models"),
    config_routes=("/v1/models",),
    absent=(
        (
            "prefix_hits",
            "LMDeploy counts cached tokens (cached_tokens_total) and keeps a hit-rate gauge, no lookups",
        ),
        (
            "prefix_lookups",
            "LMDeploy counts cached tokens (cached_tokens_total) and keeps a hit-rate gauge, no lookups",
        ),
        ("preemptions", "LMDeploy serves no preemption counter"),
    ),
)
