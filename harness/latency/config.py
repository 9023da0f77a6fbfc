"""The one typed configuration a latency run is driven by (CLI flags + profile → this)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from harness.profiles import Bucket, LatencySpec, Profile
from harness.prompts import fresh_seed

Mode = Literal["official", "strict", "both"]
MetricsChoice = Literal["auto", "on", "off"]


@dataclass(frozen=True)
class LatencyConfig:
    url: str
    mode: Mode = "official"
    buckets: tuple[Bucket, ...] = ()
    endpoint: str = "/invocations"  # official mode
    strict_endpoint: str = "/v1/completions"
    runs: int = 50
    warmup: int = 5
    timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
    tokenizer: str = "qwen:Qwen/Qwen3.5-4B"
    model: str | None = None  # strict mode's "model" field; None = first served model
    concurrency: int = 1
    force_length: bool = False
    # the strict prompts' seed; None: a fresh one per run (with_seed), so no server has
    # seen the prompts before (docs/timing.md, "Seeds"); N replays a run exactly
    seed: int | None = None
    seed_drawn: bool = False  # True when with_seed drew it (recorded: "drawn" vs "given")
    temperature: float = 0.0
    filler_sentence: str = "The quick brown fox jumps over the lazy dog. "
    filler_divisor: int = 10
    filler_min_repeats: int = 1
    new_connection_per_request: bool = True
    ready_path: str = "/ping"
    ready_interval_s: float = 5.0
    ready_timeout_s: float = 600.0
    calibrate: bool = True
    think_close: str = "</think>"
    extra_body: dict[str, object] = field(default_factory=dict)
    # the profile's [latency] section: what the grader does (runs, warm-ups, buckets)
    spec: LatencySpec | None = None
    # scrape /metrics around each bucket (a harness extra; auto: off in pure official mode)
    metrics: MetricsChoice = "auto"
    # after the buckets, one request per bucket whose usage the text cannot explain, asking
    # the server for its token ids (a harness extra; auto: off in pure official mode)
    usage_probe: MetricsChoice = "auto"
    usage_tolerance: int = 4  # re-tokenisation drift allowed (the profile's [check] value)

    @property
    def prompt_seed(self) -> int:
        """The seed in force (0 only for a config that never went through :func:`with_seed`)."""
        return self.seed if self.seed is not None else 0

    def filler(self, prompt_tokens: int) -> str:
        return self.filler_sentence * max(
            self.filler_min_repeats, prompt_tokens // self.filler_divisor
        )


def with_seed(cfg: LatencyConfig, seed: int | None = None) -> LatencyConfig:
    """``cfg`` with a concrete seed: ``seed`` if given, else ``cfg.seed``, else a fresh draw."""
    if seed is not None:
        return replace(cfg, seed=seed)
    if cfg.seed is not None:
        return cfg
    return replace(cfg, seed=fresh_seed(), seed_drawn=True)


def from_profile(
    profile: Profile, url: str, *, buckets: str | None = None, **overrides: Any
) -> LatencyConfig:
    """The profile's latency procedure at ``url``, then ``overrides`` (None values ignored).

    ``buckets`` is the comma list the CLI takes (``short,long``); an unknown name is a
    ConfigError naming the profile's buckets."""
    spec = profile.require_latency()
    chosen = tuple(spec.buckets)
    if buckets:
        chosen = tuple(spec.bucket(name.strip()) for name in buckets.split(",") if name.strip())
    ready = profile.readiness
    base: dict[str, Any] = {
        "url": url.rstrip("/"),
        "buckets": chosen,
        "endpoint": spec.endpoint,
        "strict_endpoint": spec.strict_endpoint,
        "runs": spec.runs,
        "warmup": spec.warmup,
        "tokenizer": profile.server.tokenizer,
        "temperature": spec.temperature,
        "filler_sentence": spec.filler_sentence,
        "filler_divisor": spec.filler_divisor,
        "filler_min_repeats": spec.filler_min_repeats,
        "new_connection_per_request": spec.new_connection_per_request,
        "ready_path": profile.server.ready_path,
        "ready_interval_s": ready.poll_interval_s,
        "ready_timeout_s": ready.timeout_s,
        "think_close": profile.server.think_close,
        "usage_tolerance": profile.check.usage_tolerance_tokens,
        "spec": spec,
    }
    base.update({k: v for k, v in overrides.items() if v is not None})
    return LatencyConfig(**base)
