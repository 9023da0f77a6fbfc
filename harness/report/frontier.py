"""The best run, the frontier of improvements and its waterfall: pure functions over entries.

Which runs compete (docs/report.md, "best score and frontier"):
1. only runs with a latency score;
2. official-mode scores when any run has one (strict scores are not the
   leaderboard's number and are not compared with official ones);
3. only runs whose gate said PASS when any did: a fast run that fails a
   quality gate is not a result. When none passed, every scored run competes
   and the basis says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.report.entry import LedgerEntry


@dataclass(frozen=True)
class Frontier:
    basis: str  # human words for which runs compete
    candidates: list[LedgerEntry]  # oldest first
    points: list[LedgerEntry]  # candidates that beat every earlier candidate, oldest first

    @property
    def best(self) -> LedgerEntry | None:
        return self.points[-1] if self.points else None


@dataclass(frozen=True)
class WaterfallStep:
    label: str
    bottom: float  # where the bar starts
    delta: float  # its height (the first step: the first frontier score itself)
    total: float  # the score after this step
    first: bool


def candidates(entries: Sequence[LedgerEntry]) -> tuple[str, list[LedgerEntry]]:
    scored = [e for e in entries if e.score is not None]
    if any(e.score_mode == "official" for e in scored):
        scored = [e for e in scored if e.score_mode != "strict"]
    passing = [e for e in scored if e.valid]
    if passing:
        return "runs that passed the gate", sorted(passing, key=lambda e: (e.time, e.id))
    basis = "all scored runs; none passed the gate" if scored else "no scored runs"
    return basis, sorted(scored, key=lambda e: (e.time, e.id))


def frontier(entries: Sequence[LedgerEntry]) -> Frontier:
    """Running best over time: a run joins when its score beats every earlier candidate."""
    basis, cands = candidates(entries)
    points: list[LedgerEntry] = []
    for e in cands:
        assert e.score is not None  # candidates() keeps scored runs only
        if not points or e.score > (points[-1].score or 0.0):
            points.append(e)
    return Frontier(basis=basis, candidates=cands, points=points)


def waterfall(points: Sequence[LedgerEntry]) -> list[WaterfallStep]:
    """First bar: the first frontier score; then one bar per improvement."""
    steps: list[WaterfallStep] = []
    total = 0.0
    for i, e in enumerate(points):
        score = e.score or 0.0
        steps.append(
            WaterfallStep(
                label=e.short_label(),
                bottom=total if i else 0.0,
                delta=score - total,
                total=score,
                first=i == 0,
            )
        )
        total = score
    return steps
