"""The one typed configuration a latency run is driven by (CLI flags + profile → this)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from harness.profiles import Bucket, LatencySpec

Mode = Literal["official", "strict", "both"]


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

    def filler(self, prompt_tokens: int) -> str:
        return self.filler_sentence * max(
            self.filler_min_repeats, prompt_tokens // self.filler_divisor
        )
