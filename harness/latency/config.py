"""The one typed configuration a latency run is driven by (CLI flags + profile → this)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from harness.errors import ConfigError
from harness.profiles import Bucket, LatencySpec, Profile

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
    seed: int = 0
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
    # --until-ci PCT: stop a bucket once the 95 % interval of its median is within ±PCT %
    # of the median (a confidence sequence, harness/latency/sequential.py); None = all runs
    until_ci: float | None = None

    def __post_init__(self) -> None:
        if self.until_ci is not None and not self.until_ci > 0:
            raise ConfigError(
                f"--until-ci must be a positive percentage (got {self.until_ci:g})",
                hint="e.g. --until-ci 1 stops a bucket at ±1 % of its median",
            )
        if self.until_ci is not None and self.concurrency != 1 and self.mode != "official":
            raise ConfigError(
                "--until-ci looks after every request, one at a time: it cannot be combined "
                f"with --concurrency {self.concurrency}",
                hint="drop --concurrency (the latency procedure sends one request at a time)",
            )

    def filler(self, prompt_tokens: int) -> str:
        return self.filler_sentence * max(
            self.filler_min_repeats, prompt_tokens // self.filler_divisor
        )


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
        "spec": spec,
    }
    base.update({k: v for k, v in overrides.items() if v is not None})
    return LatencyConfig(**base)
