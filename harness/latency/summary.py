"""Latency's summary facet (harness/view/summary.py): its ledger fields (the bucket
medians, the score the ledger ranks by, how it was measured), its bucket columns,
its summary lines, ``gate.json``'s bucket speedups and the latest run's plots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.latency.ledger import BucketMedian, LatencyLedger, Procedure
from harness.latency.ranking import not_ranked
from harness.latency.report import LatencyReport
from harness.latency.views import bucket_chart, distribution_chart, samples
from harness.view import fmt
from harness.view.model import Block, Figure
from harness.view.summary import KindSummary, LatestRun, LedgerColumn, RankedScore, ScoreMode


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _procedure(latency: LatencyReport) -> Procedure | None:
    if not latency.settings:
        return None
    s = latency.settings
    buckets = s.get("buckets")
    official = s.get("official_procedure")
    return Procedure(
        runs=_int(s.get("runs")),
        warmup=_int(s.get("warmup")),
        buckets=[str(b) for b in buckets] if isinstance(buckets, list) else [],
        official=official if isinstance(official, bool) else None,
        until_ci=until if isinstance(until := s.get("until_ci"), int | float) else None,
    )


def ledger_fields(latency: LatencyReport) -> LatencyLedger:
    buckets = [
        BucketMedian(
            name=b.name,
            mode=b.mode,
            median_ms=b.median_ms,
            baseline_ms=b.baseline_ms,
            speedup=b.speedup,
            n_ok=b.n_ok,
            n_failed=b.n_failed,
        )
        for b in [*latency.official, *latency.strict]
    ]
    score_mode: ScoreMode | None = None
    if latency.score is not None:
        score_mode = "official" if any(b.mode == "official" for b in buckets) else "strict"
    return LatencyLedger(
        buckets=buckets,
        score=latency.score,
        score_ci95=latency.score_ci95,
        score_mode=score_mode,
        procedure=_procedure(latency),
        strict_score=latency.strict_score,
    )


def ranked(part: LatencyLedger) -> RankedScore:
    return RankedScore(part.score, part.score_ci95, part.score_mode)


def facts(part: LatencyLedger) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if part.score is not None:
        mode = f" ({part.score_mode})" if part.score_mode else ""
        out.append(("score", fmt.times(part.score) + mode))
        out.append(("score 95% CI", fmt.span(part.score_ci95, fmt.times)))
    if part.strict_score is not None:
        out.append(("strict score", fmt.times(part.strict_score)))
    return out


def _median_cell(name: str) -> LedgerColumn[LatencyLedger]:
    def cell(part: LatencyLedger) -> str:
        found = part.medians(part.scored_mode).get(name)
        return fmt.ms(found.median_ms if found else None)

    return LedgerColumn(name, cell)


def columns(parts: Sequence[LatencyLedger]) -> list[LedgerColumn[LatencyLedger]]:
    """One column per bucket (median ms in the scored mode), in the order of the run
    measuring the most of them (the profile's)."""
    names: list[str] = []
    for p in sorted(parts, key=lambda p: -len(p.buckets)):
        names += [b.name for b in p.buckets if b.mode == p.scored_mode and b.name not in names]
    return [_median_cell(n) for n in names]


def headline(latency: LatencyReport | None) -> dict[str, Any]:
    speedups = {b.name: b.speedup for b in latency.buckets()} if latency else {}
    return {"bucket_speedups": speedups}


def latest(run: LatestRun[LatencyReport, LatencyLedger]) -> list[Block | None]:
    """The newest run's bucket medians beside the best's, and its latency distributions."""
    part = run.part
    series = [(f"latest: {run.label}", list(part.medians(part.scored_mode).values()))]
    if run.best is not None:
        label, best = run.best
        series.append((f"best: {label}", list(best.medians(best.scored_mode).values())))
    per_mode = {m: s for m in ("official", "strict") if (s := samples(run.report, m))}
    baselines = {b.name: b.baseline_ms for b in part.buckets if b.baseline_ms is not None}
    caption = f"Latency distributions: {run.label}"
    charts = (bucket_chart(series), distribution_chart(per_mode, baselines, caption))
    return [None if c is None else Figure(c) for c in charts]


SUMMARY: KindSummary[LatencyReport, LatencyLedger] = KindSummary(
    part=LatencyLedger,
    of=ledger_fields,
    facts=facts,
    columns=columns,
    headline=headline,
    ranked=ranked,
    not_ranked=not_ranked,
    latest=latest,
)
