"""vLLM (names from vllm/v1/metrics/loggers.py and vllm/v1/spec_decode/metrics.py, 0.32)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, MetricName, Quirk, SignalSpec

_SRC = "vllm/v1/metrics/loggers.py"
_SPEC = "vllm/v1/spec_decode/metrics.py"

RECORD = EngineRecord(
    name="vllm",
    title="vLLM",
    signals=(
        SignalSpec(
            "requests",
            (MetricName("vllm:request_success_total", "requests", "counter", source=_SRC),),
        ),
        SignalSpec(
            "prompt_tokens",
            (MetricName("vllm:prompt_tokens_total", "tokens", "counter", source=_SRC),),
            includes="includes prompt tokens served from the prefix cache",
        ),
        SignalSpec(
            "generation_tokens",
            (MetricName("vllm:generation_tokens_total", "tokens", "counter", source=_SRC),),
        ),
        SignalSpec(
            "cached_prompt_tokens",
            (
                MetricName(
                    "vllm:prompt_tokens_cached_total",
                    "tokens",
                    "counter",
                    versions="recent (0.32 has it)",
                    source=_SRC,
                ),
            ),
        ),
        SignalSpec(
            "prefix_hits",
            (
                MetricName(
                    "vllm:prefix_cache_hits_total",
                    "tokens",
                    "counter",
                    versions=">= 0.9",
                    source=_SRC,
                ),
                MetricName(
                    "vllm:gpu_prefix_cache_hits_total",
                    "blocks",
                    "counter",
                    versions="<= 0.8",
                    verified=False,
                ),
            ),
        ),
        SignalSpec(
            "prefix_lookups",
            (
                MetricName(
                    "vllm:prefix_cache_queries_total",
                    "tokens",
                    "counter",
                    versions=">= 0.9",
                    source=_SRC,
                ),
                MetricName(
                    "vllm:gpu_prefix_cache_queries_total",
                    "blocks",
                    "counter",
                    versions="<= 0.8",
                    verified=False,
                ),
            ),
        ),
        SignalSpec(
            "spec_drafts",
            (MetricName("vllm:spec_decode_num_drafts_total", "requests", "counter", source=_SPEC),),
        ),
        SignalSpec(
            "spec_draft_tokens",
            (
                MetricName(
                    "vllm:spec_decode_num_draft_tokens_total", "tokens", "counter", source=_SPEC
                ),
            ),
        ),
        SignalSpec(
            "spec_accepted_tokens",
            (
                MetricName(
                    "vllm:spec_decode_num_accepted_tokens_total", "tokens", "counter", source=_SPEC
                ),
            ),
        ),
        SignalSpec(
            "preemptions",
            (MetricName("vllm:num_preemptions_total", "requests", "counter", source=_SRC),),
        ),
        SignalSpec(
            "kv_usage",
            (
                MetricName(
                    "vllm:kv_cache_usage_perc", "fraction", "gauge", combine="max", source=_SRC
                ),
                MetricName(
                    "vllm:gpu_cache_usage_perc",
                    "fraction",
                    "gauge",
                    versions="older",
                    combine="max",
                    verified=False,
                ),
            ),
        ),
        SignalSpec(
            "e2e_seconds",
            (MetricName("vllm:e2e_request_latency_seconds", "seconds", "histogram", source=_SRC),),
        ),
        SignalSpec(
            "ttft_seconds",
            (MetricName("vllm:time_to_first_token_seconds", "seconds", "histogram", source=_SRC),),
        ),
        SignalSpec("info", (MetricName("vllm:cache_config_info", "labels", "info", source=_SRC),)),
    ),
    detect=Detect(
        metric_prefixes=("vllm:",),
        routes=(("/version", "version", "version"),),
        owned_by=("vllm",),
    ),
    ready_routes=("/health", "/ping", "/v1/models"),
    config_routes=("/version", "/v1/models"),
    quirks=(Quirk("/ping exists (SageMaker route), as on TGI"),),
    absent=(
        ("prefix_hit_rate", "vLLM keeps no hit-rate gauge: the rate is hits / queries"),
        (
            "spec_acceptance_rate",
            "vLLM keeps no acceptance gauge: the rate is accepted / draft tokens",
        ),
    ),
)
