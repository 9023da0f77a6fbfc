"""Quality's summary facet (harness/view/summary.py): each benchmark's score in the ledger,
a column per benchmark, ``gate.json``'s scores and the latest run's score plot and table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.quality.report import QualityReport
from harness.quality.views import score_chart
from harness.view import fmt
from harness.view.model import Block, Figure, Table, table
from harness.view.summary import KindSummary, LatestRun, LedgerColumn


class QualityScore(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    title: str
    metric: str = ""
    score: float | None = None
    threshold: float | None = None
    passed: bool | None = None
    n: int = 0


class QualityLedger(BaseModel):
    """Quality's keys of a ledger line."""

    model_config = ConfigDict(extra="ignore")

    quality: list[QualityScore] = Field(default_factory=list)
    quality_limit: float | None = None


def ledger_fields(quality: QualityReport) -> QualityLedger:
    scores = [
        QualityScore(
            name=b.name,
            title=b.title or b.name,
            metric=b.metric,
            score=b.score,
            threshold=b.threshold,
            passed=b.passed,
            n=b.n,
        )
        for b in quality.benchmarks
    ]
    limit = float(quality.limit) if quality.limit is not None else None
    return QualityLedger(quality=scores, quality_limit=limit)


def facts(part: QualityLedger) -> list[tuple[str, str]]:
    return []  # the run's own quality section shows every benchmark


def _bench_cell(name: str) -> LedgerColumn[QualityLedger]:
    def cell(part: QualityLedger) -> str:
        found = next((q for q in part.quality if q.name == name), None)
        if found is None:
            return fmt.DASH
        mark = "" if found.passed is None else ("✓" if found.passed else "✗")
        return fmt.num(found.score, ".2f") + mark

    return LedgerColumn(name, cell)


def columns(parts: Sequence[QualityLedger]) -> list[LedgerColumn[QualityLedger]]:
    """One column per benchmark (its score, ✓/✗ its gate), headed by its title, in the order
    of the run measuring the most of them (the profile's)."""
    bench: dict[str, str] = {}
    for p in sorted(parts, key=lambda p: -len(p.quality)):
        for q in p.quality:
            bench.setdefault(q.name, q.title)
    return [LedgerColumn(title, _bench_cell(name).cell) for name, title in bench.items()]


def headline(quality: QualityReport | None) -> dict[str, Any]:
    return {"quality": {b.name: b.score for b in quality.benchmarks} if quality else {}}


def model(quality: QualityReport) -> str | None:
    return quality.model or None


def quality_scores(part: QualityLedger) -> Table:
    """The ledger's quality scores of one run (the ledger page's latest run)."""
    rows = [
        [
            q.title,
            q.metric or fmt.DASH,
            fmt.num(q.score, ".3f"),
            fmt.num(q.threshold, ".3f"),
            str(q.n),
            fmt.yes_no(q.passed, "pass", "fail"),
        ]
        for q in part.quality
    ]
    cols = ["benchmark", "metric", "score", "threshold", "n", "gate"]
    limit = "" if part.quality_limit is None else f" (limit {part.quality_limit:g})"
    return table("latest-quality", f"quality{limit}", cols, rows, left=["benchmark", "metric"])


def latest(run: LatestRun[QualityReport, QualityLedger]) -> list[Block | None]:
    chart = score_chart(run.part.quality)
    return [None if chart is None else Figure(chart), quality_scores(run.part)]


def gate_cells(part: QualityLedger) -> list[str]:
    """``MMLU-Pro 0.357 ✗``: each benchmark's score and whether it passed its threshold."""
    return [
        f"{q.title} {fmt.num(q.score, '.3f')}"
        + ("" if q.passed is None else " ✓" if q.passed else " ✗")
        for q in part.quality
    ]


SUMMARY: KindSummary[QualityReport, QualityLedger] = KindSummary(
    part=QualityLedger,
    gate_cells=gate_cells,
    of=ledger_fields,
    facts=facts,
    columns=columns,
    headline=headline,
    model=model,
    latest=latest,
)
