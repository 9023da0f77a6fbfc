"""SimConfig: every knob of the simulator, typed. Its flags are declared in flags.py.

Timing knobs are exact targets: chunk k of a stream is written at the absolute
deadline ``arrival + ttft + prefill * uncached_prompt_tokens + i * itl`` where i
is the index of the last token the chunk carries (see docs/simulate.md).
Fault knobs draw from one RNG seeded by ``seed``, per request in arrival order.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.errors import ConfigError

DEFAULT_MODELS = ("Qwen/Qwen3.5-4B", "sim")
DEFAULT_TOKENIZER = "qwen:Qwen/Qwen3.5-4B"
# the Efficient Qwen grader's latency prompt is this sentence repeated: what --filler-speedup
# (a server that detects the benchmark) recognises
FILLER_SENTENCE = "The quick brown fox jumps over the lazy dog. "

# The routes a client may find; --disable-route takes one of these.
ROUTES = (
    "/ping",
    "/health",
    "/v1/models",
    "/invocations",
    "/v1/completions",
    "/v1/chat/completions",
    "/tokenize",
    "/detokenize",
    "/metrics",
    "/version",
)


Dialect = Literal["vllm", "sglang", "llamacpp", "lmdeploy", "tgi", "mistralrs"]
DIALECTS: tuple[Dialect, ...] = ("vllm", "sglang", "llamacpp", "lmdeploy", "tgi", "mistralrs")


class SimConfig(BaseModel):
    """All simulator knobs. Rates are probabilities in [0, 1]."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # timing
    ttft_ms: float = Field(0.0, ge=0)
    itl_ms: float = Field(0.0, ge=0)
    prefill_ms_per_token: float = Field(0.0, ge=0)
    prefix_cache: bool = False
    busy_wait_us: float = Field(1000.0, ge=0)
    # per-request lognormal jitter: TTFT, prefill and ITL all scaled by exp(N(0, pct/100))
    jitter_pct: float = Field(0.0, ge=0, le=100)
    # output length
    output_tokens: int | None = Field(None, ge=0)
    run_on: int = Field(0, ge=0)  # a near-tie EOS: tokens after the complete answer, continued
    stop_early_at: int | None = Field(None, ge=0)
    default_max_tokens: int = Field(16, ge=1)
    tokens_per_chunk: int = Field(1, ge=1)
    max_model_len: int = Field(32768, ge=1)
    think_tokens: int = Field(24, ge=1)
    # vLLM's token accounting (docs/simulate.md, "Usage"): the EOS that ends a "stop"
    # answer counted in usage, and generated special tokens that the text does not show
    count_eos: bool = False
    special_tokens: int = Field(0, ge=0)
    # identity
    # whose /metrics names it speaks (docs/engines.md): vLLM's, SGLang's or llama.cpp's as
    # written out in simulate/metrics.py; LMDeploy's, TGI's, mistral.rs's from their records
    dialect: Dialect = "vllm"  # --engine
    models: tuple[str, ...] = DEFAULT_MODELS
    seed: int = 0
    tokenizer: str = DEFAULT_TOKENIZER
    # quality: answer the local benchmark data's multiple-choice questions right with this
    # probability (seeded per question); None: generated text as for any prompt
    accuracy: float | None = Field(None, ge=0, le=1)
    accuracy_data: str | None = None  # the data folder with the answers (default: samples)
    # faults
    error_rate: float = Field(0.0, ge=0, le=1)
    error_status: int = Field(500, ge=400, le=599)
    hang_rate: float = Field(0.0, ge=0, le=1)
    drop_rate: float = Field(0.0, ge=0, le=1)
    malformed_json_rate: float = Field(0.0, ge=0, le=1)
    malformed_sse_rate: float = Field(0.0, ge=0, le=1)
    usage_skew: int = 0
    think_leak: bool = False
    disable_route: tuple[str, ...] = ()
    nondeterministic: bool = False
    route_divergence: bool = False
    ignore_max_tokens: bool = False
    fail_under_concurrency: int | None = Field(None, ge=1)
    bad_input_5xx: bool = False
    # rule breakers (docs/audit.md): an exact-response cache in front of the engine, and a
    # server that serves the grader's filler prompt this many times faster
    cache_responses: bool = False
    filler_speedup: float = Field(1.0, ge=1)
    # a server that serves a prompt it has answered before this many times faster (beyond a
    # prefix cache: its earlier answer's tokens as drafts, say): the Paris sweep repeats
    repeat_speedup: float = Field(1.0, ge=1)
    # a second model stack for the latency grader's body shape (a prompt, not messages):
    # another model's answers, and/or served this many times faster
    second_stack: bool = False
    prompt_speedup: float = Field(1.0, ge=1)
    # a stream that is not the non-streamed answer: another first token, a usage 2 tokens
    # off, or a second end of sequence after the finish
    stream_mismatch: Literal["first_token", "usage", "eos"] | None = None
    # benchmark detection of the quality graders' prompts (harness/grader_items.py's exact
    # texts): canned answers (short and fast) or routed to a bigger model (slower, shorter)
    quality_detection: Literal["canned", "routed"] | None = None
    # log
    log_file: str | None = None
    log_bodies: bool = True
    log_limit: int = Field(100_000, ge=1)

    @field_validator("models")
    @classmethod
    def _some_model(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not v:
            raise ValueError("at least one model name is needed")
        return v

    @field_validator("disable_route")
    @classmethod
    def _known_routes(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for route in v:
            if route not in ROUTES:
                raise ValueError(f"unknown route {route!r}; valid: {', '.join(ROUTES)}")
        return v


def make_config(**knobs: object) -> SimConfig:
    """Build a SimConfig, turning pydantic's error into a one-line ConfigError."""
    from pydantic import ValidationError

    try:
        return SimConfig.model_validate(knobs)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        hint = (
            f"valid knobs: {', '.join(SimConfig.model_fields)}"
            if first["type"] == "extra_forbidden"
            else f"give {where} a value in its range (harness simulate --help)"
        )
        raise ConfigError(f"bad simulator knob {where}: {first['msg']}", hint=hint) from None
