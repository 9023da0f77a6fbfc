"""Throughput's section of a comparison as view models: the table per concurrency level,
why a level is inconclusive, and the weighted score (harness/view/)."""

from __future__ import annotations

from harness.paired.views import diff_cells, score_line
from harness.throughput.compare import ThroughputSection
from harness.view.model import Block, CellLike, Table, Text, table, text


def throughput_table(sec: ThroughputSection) -> Table:
    rows: list[list[CellLike]] = [
        [
            str(x.concurrency),
            *diff_cells(x.tok_s_a, x.tok_s_b, x.diff, x.diff_pct, x.ci95, x.verdict, noise=x.noise),
        ]
        for x in sec.levels
    ]
    cols = ["concurrency", "tok/s A", "tok/s B", "Δ tok/s", "Δ %", "95 % CI", "noise", "verdict"]
    title = "throughput (B − A; positive = B higher)"
    return table("compare-throughput", title, cols, rows, left=["verdict"])


def throughput_reasons(sec: ThroughputSection) -> Text:
    """Why each inconclusive throughput level could not be judged (what it needs)."""
    rows = [x for x in sec.levels if x.verdict == "inconclusive"]
    return text(*(f"level {x.concurrency}: {x.noise_source}" for x in rows), tone="warn")


def blocks(sec: ThroughputSection) -> list[Block | None]:
    return [
        throughput_table(sec),
        throughput_reasons(sec),
        score_line("weighted score (tok/s)", sec.score, 1) if sec.score else None,
    ]
