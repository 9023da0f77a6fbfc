"""The one typed config a ``harness quality`` run is built from."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.profiles import Benchmark, Profile, QualitySpec

DATA_ROUTE_ENV = "HARNESS_DATA_ROUTE"
DATA_ROUTES = ("auto", "hf-cache", "jsonl")


@dataclass(frozen=True)
class QualityConfig:
    url: str  # server base URL, e.g. http://127.0.0.1:8080
    profile: Profile
    data_dir: Path
    nltk_data: Path
    folder: Path  # run folder: quality.json, samples, cache, rendered task YAMLs
    limit: float | None  # QUALITY_LIMIT; None or >= 1.0 means every document
    only: tuple[str, ...] = ()  # benchmark names; empty: all of the profile's
    max_gen_toks: int | None = None  # NON-OFFICIAL cap on every request's max_tokens
    stream: bool = False  # NON-OFFICIAL for the scripts: stream thinking benchmarks (GPQA)
    idle_timeout_s: float = 120.0  # streamed: max silence between reads
    endpoint: str | None = None  # default: the profile's [quality] endpoint
    model: str | None = None  # NON-OFFICIAL: the body's model name (default: the profile's)
    resume: bool = True  # reuse answers cached in the run folder
    # NON-OFFICIAL: ask each benchmark's documents in a random order seeded by `seed` and
    # stop once its gate decision is settled (harness/quality/decide.py); an estimate
    decide: bool = False
    seed: int | None = None
    # The grader's quality script sends ONE GET /ping (5 s timeout) and dies if it fails;
    # a positive timeout polls instead, every ready_interval_s (harness's own, e.g. a demo).
    ready_timeout_s: float = 0.0
    ready_interval_s: float = 5.0
    # "auto": lm-eval's own tasks on the HF datasets cache when it holds every dataset (the
    # grader's route), else the JSON Lines data folder; "hf-cache" / "jsonl" force one.
    data_route: str = field(default_factory=lambda: os.environ.get(DATA_ROUTE_ENV, "auto"))
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> QualitySpec:
        return self.profile.require_quality()

    @property
    def model_name(self) -> str:
        return self.model or self.profile.server.model

    @property
    def endpoint_url(self) -> str:
        return self.url.rstrip("/") + (self.endpoint or self.spec.endpoint)

    def __post_init__(self) -> None:
        if self.decide and self.seed is None:
            raise ConfigError("--decide needs an order seed", hint="pass --seed N")
        if self.seed is not None and not self.decide:
            raise ConfigError(
                "--seed orders the documents of --decide, and this run asks every one",
                hint="add --decide, or drop --seed",
            )
        if self.data_route not in DATA_ROUTES:
            raise ConfigError(
                f"unknown data route {self.data_route!r}",
                hint=f"{DATA_ROUTE_ENV} takes one of: {', '.join(DATA_ROUTES)}",
            )

    def benchmarks(self) -> list[Benchmark]:
        all_ = self.spec.benchmarks
        if not self.only:
            return list(all_)
        names = {b.name for b in all_}
        unknown = [n for n in self.only if n not in names]
        if unknown:
            raise ConfigError(
                f"unknown benchmark {', '.join(unknown)}",
                hint=f"this profile has: {', '.join(sorted(names))}",
            )
        return [b for b in all_ if b.name in self.only]

    def non_official(self) -> dict[str, Any]:
        """Settings that make this run differ from the grader's (recorded in quality.json)."""
        out: dict[str, Any] = {}
        if self.max_gen_toks is not None:
            out["max_gen_toks"] = self.max_gen_toks
        if self.stream:
            out["stream"] = True
            out["idle_timeout_s"] = self.idle_timeout_s
        if self.endpoint and self.endpoint != self.spec.endpoint:
            out["endpoint"] = self.endpoint
        if self.model and self.model != self.profile.server.model:
            out["model"] = self.model
        if self.decide:
            out["decide"] = {"seed": self.seed}
        return out
