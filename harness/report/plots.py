"""The ledger page's own plots (score over runs, the frontier's waterfall) as chart specs.

Every other plot belongs to a kind and is built in its ``views.py``; all are
drawn by :mod:`harness.view.draw`.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.report.entry import LedgerEntry
from harness.report.frontier import Frontier, WaterfallStep
from harness.view.chart import XY, Bars, BarSeries, Color, Lines

VERDICT_COLORS: dict[str | None, Color] = {
    "PASS": "good",
    "FAIL": "bad",
    "INCOMPLETE": "warn",
    None: "neutral",
}


def score_over_runs(
    fr: Frontier, entries: Sequence[LedgerEntry], key: str = "score"
) -> Lines | None:
    """Every scored run in time order, coloured by verdict, with the frontier as a step line."""
    scored = sorted((e for e in entries if e.score is not None), key=lambda e: (e.time, e.id))
    if not scored:
        return None
    index = {e.id: i for i, e in enumerate(scored)}
    series: list[XY] = []
    for verdict, color in VERDICT_COLORS.items():
        pts = [(float(index[e.id]), e.score or 0.0) for e in scored if e.verdict == verdict]
        if pts:
            xs, ys = zip(*pts, strict=True)
            series.append(XY(verdict or "not gated", xs, ys, color))
    if fr.points:
        steps = [float(index[e.id]) for e in fr.points if e.id in index] + [len(scored) - 1.0]
        tops = [e.score or 0.0 for e in fr.points] + [fr.points[-1].score or 0.0]
        series.append(XY("frontier", tuple(steps), tuple(tops), "ink", "step"))
    return Lines(
        key=key,
        title=f"score over runs; frontier over {fr.basis}",
        caption="Score over runs, with the frontier",
        alt="score over runs",
        series=tuple(series),
        ylabel="score (mean speedup)",
        xticks=tuple(e.short_label() for e in scored),
        hline=1.0,
        hline_label="baseline (1.0x)",
    )


def waterfall_chart(steps: Sequence[WaterfallStep], key: str = "waterfall") -> Bars | None:
    """Each bar labelled with its run and, when manifests say, what changed (board.py)."""
    if not steps:
        return None
    return Bars(
        key=key,
        title="score change between consecutive frontier runs",
        caption="score change between consecutive frontier runs",
        alt="score waterfall",
        categories=tuple(s.label for s in steps),
        series=(
            BarSeries(
                "",
                tuple(s.delta for s in steps),
                colors=tuple("s0" if s.first else "good" for s in steps),
                notes=tuple(f"{s.total:.2f}x" if s.first else f"+{s.delta:.2f}" for s in steps),
                bottoms=tuple(s.bottom for s in steps),
            ),
        ),
        ylabel="score (mean speedup)",
        rotate=True,
        legend=False,
    )
