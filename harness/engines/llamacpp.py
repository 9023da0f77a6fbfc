"""llama.cpp's ``llama-server`` (names from tools/server/server-task.cpp,
``server_task_result_metrics::to_metrics``; routes from tools/server/server.cpp)."""

from __future__ import annotations

from harness.engines.record import Detect, EngineRecord, MetricName, Quirk, SignalSpec

_SRC = "tools/server/server-task.cpp"

RECORD = EngineRecord(
    name="llamacpp",
    title="llama.cpp",
    signals=(
        SignalSpec(
            "prompt_tokens",
            (MetricName("llamacpp:prompt_tokens_total", "tokens", "counter", source=_SRC),),
            includes="excludes prompt tokens reused from the cache (they are prompt_tokens_cached_total)",
        ),
        SignalSpec(
            "generation_tokens",
            (MetricName("llamacpp:tokens_predicted_total", "tokens", "counter", source=_SRC),),
        ),
        SignalSpec(
            "cached_prompt_tokens",
            (MetricName("llamacpp:prompt_tokens_cached_total", "tokens", "counter", source=_SRC),),
        ),
        SignalSpec(
            "spec_drafts",
            (
                MetricName(
                    "llamacpp:spec_decode_num_drafts_total", "requests", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_draft_tokens",
            (
                MetricName(
                    "llamacpp:spec_decode_num_draft_tokens_total", "tokens", "counter", source=_SRC
                ),
            ),
        ),
        SignalSpec(
            "spec_accepted_tokens",
            (
                MetricName(
                    "llamacpp:spec_decode_num_accepted_tokens_total",
                    "tokens",
                    "counter",
                    source=_SRC,
                ),
            ),
        ),
    ),
    detect=Detect(
        metric_prefixes=("llamacpp:",),
        # GET /props answers build_info (tools/server/server-context.cpp)
        routes=(("/props", "build_info", "build_info"),),
        owned_by=("llamacpp",),
    ),
    metrics_on="start llama-server with --metrics",
    ready_routes=("/health", "/v1/health", "/v1/models"),
    config_routes=("/props", "/v1/models", "/slots"),
    quirks=(
        Quirk(
            "llama-cpp-python's server ignores max_completion_tokens and has no /health or /metrics"
        ),
        Quirk(
            "cpp-httplib may close kept-alive connections a pooled client then reuses",
            verified=False,
        ),
    ),
    absent=(
        (
            "requests",
            "llama.cpp counts no answered requests (only requests_processing/_deferred gauges)",
        ),
        (
            "prefix_hits",
            "llama.cpp counts cached prompt tokens, not lookups: the share is cached / (prompt + cached)",
        ),
        (
            "prefix_lookups",
            "llama.cpp counts cached prompt tokens, not lookups: the share is cached / (prompt + cached)",
        ),
        ("preemptions", "llama.cpp serves no preemption counter"),
        ("kv_usage", "llama.cpp serves no KV-cache usage gauge on /metrics"),
        ("e2e_seconds", "llama.cpp serves no latency histograms"),
        ("ttft_seconds", "llama.cpp serves no latency histograms"),
        ("info", "llama.cpp serves its settings on GET /props, not as *_info metrics"),
    ),
)
