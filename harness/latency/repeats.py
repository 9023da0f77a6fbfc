"""``harness latency --repeats N``: the whole procedure N times, and the spread between runs.

One run's bootstrap CI says how precisely that run measured its own median; it
cannot see what changes between runs (a server restart, a warmer cache, a
neighbour on the machine). Repeating the procedure measures that directly.

Layout of a repeated run folder (docs/compare.md):

- ``repeat-1/latency.json`` … ``repeat-N/latency.json``: each repetition, a
  normal latency report;
- ``latency.json``: the pooled report: every repetition's rows through the same
  aggregation (so ``gate`` / ``report`` / ``compare`` read it unchanged), with
  ``settings.repeats = N``;
- ``latency_repeats.json``: this module's :class:`RepeatsReport`: per mode and
  bucket the N medians with their within-run CIs, and the between-run spread
  (SD and range) of the medians and of the score. ``compare`` uses the range
  as the noise band a difference must exceed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np
from pydantic import BaseModel, Field
from rich.console import Console
from rich.table import Table

from harness.latency.report import LatencyReport
from harness.latency.state import LatencyState
from harness.report_base import Migration, Report

REPEAT_DIR = "repeat-{i}"
R = TypeVar("R")


@dataclass(frozen=True)
class Spread:
    """Between-run spread of one statistic over N repeats."""

    n: int
    mean: float | None
    sd: float | None  # sample SD (ddof=1); 0.0 for one value
    range: float | None  # max - min


def spread(values: Sequence[float]) -> Spread:
    """Mean, SD and range of N values (pure). Empty gives Nones; one value a zero spread."""
    if not len(values):
        return Spread(0, None, None, None)
    a = np.asarray(values, dtype=float)
    return Spread(
        n=int(a.size),
        mean=float(a.mean()),
        sd=float(a.std(ddof=1)) if a.size > 1 else 0.0,
        range=float(a.max() - a.min()),
    )


class RepeatBucket(BaseModel):
    mode: Literal["official", "strict"]
    bucket: str
    medians_ms: list[float | None]  # one per repetition
    ci95_within: list[tuple[float, float] | None]  # each repetition's own bootstrap CI
    mean_ms: float | None
    sd_ms: float | None  # between-run SD of the medians
    range_ms: float | None  # max - min of the medians
    # strict mode: the same for the TTFT medians
    ttft_medians_ms: list[float | None] = Field(default_factory=list)
    ttft_sd_ms: float | None = None
    ttft_range_ms: float | None = None


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2: each repetition's strict-prompt seed (``seeds``) and the run's (``seed``).
    Schema-1 runs used one seed for every repetition, their provenance's."""
    prov = data.get("provenance")
    seed = prov.get("seed") if isinstance(prov, dict) else None
    data.setdefault("seed", seed)
    n = data.get("repeats")
    data.setdefault("seeds", [seed] * n if isinstance(seed, int) and isinstance(n, int) else [])
    return data


class RepeatsReport(Report):
    SCHEMA_VERSION: ClassVar[int] = 2
    FILENAME: ClassVar[str] = "latency_repeats.json"
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2}

    kind: str = "latency-repeats"
    repeats: int
    seed: int | None = None  # the run's seed (drawn or --seed); repetition i derives its own
    seeds: list[int] = Field(default_factory=list)  # each repetition's strict-prompt seed
    folders: list[str] = Field(default_factory=list)  # relative to the run folder
    buckets: list[RepeatBucket] = Field(default_factory=list)
    scores: list[float | None] = Field(default_factory=list)
    score_ci95_within: list[tuple[float, float] | None] = Field(default_factory=list)
    score_sd: float | None = None
    score_range: float | None = None
    # with --mode both: the strict score beside the official one
    strict_scores: list[float | None] = Field(default_factory=list)
    strict_score_sd: float | None = None
    strict_score_range: float | None = None

    def bucket(self, mode: str, name: str) -> RepeatBucket | None:
        return next((b for b in self.buckets if b.mode == mode and b.bucket == name), None)


def run_repeats(n: int, one: Callable[[int], R]) -> list[R]:
    """Run ``one(i)`` for i = 1..n in order (never concurrently: repetitions must not overlap)."""
    return [one(i) for i in range(1, n + 1)]


def _present(values: Sequence[float | None]) -> Spread:
    return spread([v for v in values if v is not None])


def summarize_repeats(
    reports: Sequence[LatencyReport], folders: Sequence[str] = ()
) -> RepeatsReport:
    """The between-run spread of N repetitions (pure). Buckets missing in a repetition count as None."""
    keys: list[tuple[Literal["official", "strict"], str]] = []
    for rep in reports:
        for b in [*rep.official, *rep.strict]:
            if (b.mode, b.name) not in keys:
                keys.append((b.mode, b.name))
    buckets: list[RepeatBucket] = []
    for mode, name in keys:
        found = [
            next(
                (b for b in (r.official if mode == "official" else r.strict) if b.name == name),
                None,
            )
            for r in reports
        ]
        medians = [b.median_ms if b else None for b in found]
        s = _present(medians)
        ttfts = [b.ttft.median if b and b.ttft else None for b in found]
        st = _present(ttfts)
        buckets.append(
            RepeatBucket(
                mode=mode,
                bucket=name,
                medians_ms=medians,
                ci95_within=[b.median_ci95 if b else None for b in found],
                mean_ms=s.mean,
                sd_ms=s.sd,
                range_ms=s.range,
                ttft_medians_ms=ttfts if st.n else [],
                ttft_sd_ms=st.sd,
                ttft_range_ms=st.range,
            )
        )
    scores = [r.score for r in reports]
    s = _present(scores)
    strict_scores = [r.strict_score for r in reports]
    ss = _present(strict_scores)
    return RepeatsReport(
        repeats=len(reports),
        folders=list(folders),
        buckets=buckets,
        scores=scores,
        score_ci95_within=[r.score_ci95 for r in reports],
        score_sd=s.sd,
        score_range=s.range,
        strict_scores=strict_scores if any(x is not None for x in strict_scores) else [],
        strict_score_sd=ss.sd,
        strict_score_range=ss.range,
    )


def pool_states(states: Sequence[LatencyState]) -> LatencyState:
    """Every repetition's rows and ITLs in one state, for the pooled ``latency.json``.

    Row indexes are renumbered so they stay unique over the pool
    (repetition i's rows follow repetition i-1's).
    """
    pooled = LatencyState()
    offset = 0
    for st in states:
        top = -1
        for row in st.rows:
            pooled.rows.append(row.model_copy(update={"index": row.index + offset}))
            top = max(top, row.index)
        offset += top + 1
        for key, values in st.itls.items():
            pooled.itls.setdefault(key, []).extend(values)
        for m in st.server_models:
            if m not in pooled.server_models:
                pooled.server_models.append(m)
        if pooled.readiness_s is None:
            pooled.readiness_s = st.readiness_s
        pooled.usage_checks.extend(st.usage_checks)
    return pooled


def render_repeats(console: Console, rep: RepeatsReport) -> None:
    """The between-run spread beside each repetition's own (within-run) CI."""
    table = Table(title=f"between-run spread over {rep.repeats} repeats", title_justify="left")
    for col in ("mode", "bucket", "medians ms", "within-run 95% CI ms", "SD ms", "range ms"):
        table.add_column(col, justify="left" if col in ("mode", "bucket") else "right")

    def ci(c: tuple[float, float] | None, digits: int = 1) -> str:
        return "-" if c is None else f"{c[0]:.{digits}f}–{c[1]:.{digits}f}"

    def num(v: float | None, digits: int = 1) -> str:
        return "-" if v is None else f"{v:.{digits}f}"

    for b in rep.buckets:
        table.add_row(
            b.mode,
            b.bucket,
            " ".join(num(m) for m in b.medians_ms),
            " ".join(ci(c) for c in b.ci95_within),
            num(b.sd_ms),
            num(b.range_ms),
        )
    table.add_row(
        "score",
        "",
        " ".join(num(s, 3) for s in rep.scores),
        " ".join(ci(c, 3) for c in rep.score_ci95_within),
        num(rep.score_sd, 3),
        num(rep.score_range, 3),
    )
    if rep.strict_scores:
        table.add_row(
            "strict score",
            "",
            " ".join(num(s, 3) for s in rep.strict_scores),
            "",
            num(rep.strict_score_sd, 3),
            num(rep.strict_score_range, 3),
        )
    console.print(table)
    if rep.seeds:
        console.print(
            f"strict-prompt seeds per repeat: {' '.join(map(str, rep.seeds))} "
            f"(--seed {rep.seed} replays them all)"
        )
