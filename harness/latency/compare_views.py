"""Latency's section of a comparison as view models: the table, why a row is
inconclusive, each mode's score and the plot of the differences (harness/view/)."""

from __future__ import annotations

from harness.latency.compare import LatencySection
from harness.paired.views import COLOR, diff_cells, score_line
from harness.view.chart import Dot, DotRow, Dots
from harness.view.model import Block, CellLike, Figure, Table, Text, table, text


def latency_table(sec: LatencySection) -> Table:
    rows: list[list[CellLike]] = [
        [
            d.mode,
            d.bucket,
            d.metric,
            f"{d.n_a}/{d.n_b}",
            *diff_cells(
                d.median_a_ms,
                d.median_b_ms,
                d.diff_ms,
                d.diff_pct,
                d.ci95_ms,
                d.verdict,
                noise=d.noise_ms,
            ),
        ]
        for d in sec.buckets
    ]
    cols = ["mode", "bucket", "metric", "n A/B", "median A ms", "median B ms", "Δ ms", "Δ %"]
    cols += ["95 % CI ms", "noise ms", "verdict"]
    title = "latency (B − A; positive = B slower)"
    return table("compare-latency", title, cols, rows, left=["mode", "bucket", "metric", "verdict"])


def latency_reasons(sec: LatencySection) -> Text:
    """Why each inconclusive latency row could not be judged (what it needs)."""
    rows = [d for d in sec.buckets if d.verdict == "inconclusive"]
    return text(*(f"{d.mode} {d.bucket} {d.metric}: {d.noise_source}" for d in rows), tone="warn")


def latency_chart(sec: LatencySection) -> Dots | None:
    """Δ median (B − A, % of A) per mode / bucket / metric, with its 95 % CI and noise band."""
    rows: list[DotRow] = []
    for d in sec.buckets:
        if d.diff_pct is None or not d.median_a_ms:
            continue
        scale = 100 / d.median_a_ms
        color = COLOR.get(d.verdict, "neutral")
        ci = None if d.ci95_ms is None else (d.ci95_ms[0] * scale, d.ci95_ms[1] * scale)
        rows.append(
            DotRow(
                f"{d.mode} {d.bucket} {d.metric}",
                (Dot(d.diff_pct, color),),
                interval=ci,
                interval_color=color,
                band=(-d.noise_ms * scale, d.noise_ms * scale),
            )
        )
    if not rows:
        return None
    return Dots(
        key="compare-latency",
        title="",
        caption="latency difference per bucket with 95 % CI",
        alt="difference of medians B − A per bucket with confidence intervals",
        rows=tuple(rows),
        xlabel="B − A, % of A's median (positive = B slower); grey: noise band",
        zero_line=True,
    )


def blocks(sec: LatencySection) -> list[Block | None]:
    chart = latency_chart(sec)
    return [
        latency_table(sec),
        latency_reasons(sec),
        *(score_line(f"{s.mode} score (mean speedup)", s, 3) for s in sec.scores),
        Figure(chart) if chart else None,
    ]
