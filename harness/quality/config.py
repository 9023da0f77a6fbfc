"""The one typed config a ``harness quality`` run is built from: profile + typed overrides.

``QualityOverrides`` is what a user may change (the ``harness quality`` flags and
the gate's quality options, declared once on its fields); ``from_profile`` is
the only builder of a ``QualityConfig``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.argtypes import LIMIT_HELP, positive_int, quality_limit
from harness.data.layout import DATA_DIR_ENV, default_data_dir
from harness.data.punkt import default_nltk_data
from harness.errors import ConfigError
from harness.flags import option, ready_timeout, seconds, wait_for_start
from harness.overrides import Overrides
from harness.profiles import Benchmark, Profile, QualitySpec
from harness.prompts import fresh_seed
from harness.target import Target

DATA_ROUTE_ENV = "HARNESS_DATA_ROUTE"
DATA_ROUTES = ("auto", "hf-cache", "jsonl")


@dataclass(frozen=True)
class QualityOverrides(Overrides):
    """What a user may set for a quality run; None: the profile's (or the harness's) value."""

    COMMAND = "quality"

    limit: float | None = option(
        "--limit",
        type=quality_limit,
        metavar="F|N",
        help=f"{LIMIT_HELP} (default: the profile's, {{default:quality.limit}} for {{default:name}})",
        gate="--limit",
    )
    data_dir: Path | None = option(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help=f"benchmark data folder (default: ${DATA_DIR_ENV} or ~/.cache/harness/data)",
        gate="--data-dir",
    )
    nltk_data: Path | None = option(
        "--nltk-data",
        type=Path,
        metavar="DIR",
        help="NLTK data folder for IFEval's punkt_tab (default: DATA_DIR/nltk_data when it "
        "holds punkt_tab, else the harness cache; written there offline when missing)",
    )
    only: str | None = option(
        "--only",
        help="comma-separated benchmark names (default: all in the profile)",
        gate="--quality-only",
    )
    max_gen_toks: int | None = option(
        "--max-gen-toks",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: cap every request's max_tokens, for slow test servers"
        " (default: none, the profile's budgets)",
        gate="--max-gen-toks",
    )
    stream: bool = option("--stream", default=False, help="stream thinking benchmarks (GPQA)")
    idle_timeout_s: float = seconds(
        "--idle-timeout",
        default=120.0,
        help="with --stream: the longest silence between reads, in s",
    )
    endpoint: str | None = option(
        "--endpoint",
        help="NON-OFFICIAL: post somewhere else (default: the profile's [quality] endpoint)",
    )
    model: str | None = option(
        "--model", help="NON-OFFICIAL: the body's model name (default: the profile's)"
    )
    resume: bool = option(
        "--fresh",
        default=True,
        help="ignore answers cached in the run folder (--out); asks the server nothing but "
        "the grader's GET /ping",
    )
    resume_answers: bool = option(
        "--resume-answers",
        default=False,
        help="reuse the answers cached in the run folder even when another server (or a "
        "restarted one) gave them",
    )
    decide: bool = option(
        "--decide",
        default=False,
        help="NON-OFFICIAL, an estimate: ask each benchmark's documents in a seeded random "
        "order and stop once its gate decision is settled (risk < 0.001); a later run "
        "without it, same --out, completes the set from the answer cache (default: off)",
        gate="--decide",
    )
    seed: int | None = option(
        "--seed",
        type=int,
        help="--decide: the documents' order seed (default: a fresh one per run, recorded)",
    )
    ready_timeout_s: float | None = ready_timeout()
    wait_for_start: bool = wait_for_start()


@dataclass(frozen=True)
class QualityConfig:
    """A quality run, built by :func:`from_profile` only."""

    url: str  # server base URL, e.g. http://127.0.0.1:8080
    profile: Profile
    data_dir: Path
    nltk_data: Path
    folder: Path  # run folder: quality.json, samples, cache, rendered task YAMLs
    # QUALITY_LIMIT: a fraction (< 1), None or 1.0 every document, a whole count > 1
    # the first N documents (non-official; quality/stats.py: effective_limit)
    limit: float | None
    only: tuple[str, ...]  # benchmark names; empty: all of the profile's
    max_gen_toks: int | None  # NON-OFFICIAL cap on every request's max_tokens
    stream: bool  # NON-OFFICIAL for the scripts: stream thinking benchmarks (GPQA)
    idle_timeout_s: float  # streamed: max silence between reads
    endpoint: str | None  # None: the profile's [quality] endpoint
    model: str | None  # NON-OFFICIAL: the body's model name (None: the profile's)
    resume: bool  # reuse answers cached in the run folder (by the same server: resume.py)
    resume_answers: bool  # reuse them whichever server gave them
    # NON-OFFICIAL: ask each benchmark's documents in a random order seeded by `seed` and
    # stop once its gate decision is settled (harness/quality/decide.py); an estimate
    decide: bool
    seed: int | None  # the order's seed (drawn by from_profile when --decide has none)
    # The grader's quality script sends ONE GET /ping (5 s timeout) and dies if it fails;
    # a positive timeout polls instead, every ready_interval_s (the profile's interval).
    ready_timeout_s: float
    ready_interval_s: float
    # "auto": lm-eval's own tasks on the HF datasets cache when it holds every dataset (the
    # grader's route), else the JSON Lines data folder; "hf-cache" / "jsonl" force one.
    data_route: str = field(default_factory=lambda: os.environ.get(DATA_ROUTE_ENV, "auto"))
    extra: dict[str, Any] = field(default_factory=dict)
    wait_for_start: bool = False  # refused connections do not end the readiness wait

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
        if self.resume_answers and not self.resume:
            raise ConfigError(
                "--fresh ignores the cached answers and --resume-answers reuses them",
                hint="pass one of them",
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
                hint=f"pass --only with the names this profile has: {', '.join(sorted(names))}",
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
        if self.limit is not None and self.limit > 1.0:
            out["limit"] = int(self.limit)  # a count: the grader reads it as "all"
        if self.decide:
            out["decide"] = {"seed": self.seed}
        return out


def from_profile(profile: Profile, target: Target, o: QualityOverrides) -> QualityConfig:
    """The profile's quality procedure at ``target.url`` into ``target.folder``, with ``o``.

    ``o.data_dir`` defaults to ``$HARNESS_DATA_DIR`` or the cache's ``data/``, NLTK data
    to its ``nltk_data/`` when that holds punkt_tab, else the harness cache (punkt.py),
    ``o.limit`` to the profile's; ``o.only`` is the CLI's comma list. Readiness is polled
    like latency's (the profile's interval and timeout): on a ready server that is the one
    ``GET /ping`` the grader's quality script sends."""
    spec = profile.require_quality()
    data = (o.data_dir or default_data_dir()).resolve()
    return QualityConfig(
        url=target.url,
        profile=profile,
        data_dir=data,
        nltk_data=(o.nltk_data or default_nltk_data(data)).resolve(),
        folder=target.folder,
        limit=o.limit if o.limit is not None else spec.limit,
        only=tuple(n.strip() for n in (o.only or "").split(",") if n.strip()),
        max_gen_toks=o.max_gen_toks,
        stream=o.stream,
        idle_timeout_s=o.idle_timeout_s,
        endpoint=o.endpoint,
        model=o.model,
        resume=o.resume,
        resume_answers=o.resume_answers,
        decide=o.decide,
        # recorded (decide_seed); --seed replays it
        seed=o.seed if o.seed is not None or not o.decide else fresh_seed(),
        ready_timeout_s=o.ready_timeout_s or profile.readiness.timeout_s,
        ready_interval_s=profile.readiness.poll_interval_s,
        wait_for_start=o.wait_for_start,
    )
