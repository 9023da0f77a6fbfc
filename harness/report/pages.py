"""The two HTML reports: the ledger (every run) and one run in detail, both made of sections."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness import __version__
from harness.report import html
from harness.report.board import Board, GroupView
from harness.report.entry import LedgerEntry
from harness.report.folder import read_run
from harness.report.parts import report_of, summaries
from harness.report.plots import score_over_runs, waterfall_chart
from harness.report.render import best_text, fold_text, frontier_text
from harness.report.sections import run_sections, summary
from harness.report.table import VERDICT_TONE, ledger_table
from harness.view import fmt
from harness.view.chart import Chart
from harness.view.model import Block, Figure, Section, section, text
from harness.view.summary import LatestRun


def _stamp(now: datetime | None) -> str:
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return f"generated {when} by harness {__version__}"


def _figure(chart: Chart | None) -> Figure | None:
    return None if chart is None else Figure(chart)


def _latest(e: LedgerEntry, best: LedgerEntry | None, root: Path) -> Section:
    """The newest run beside the best: verdict, reasons, flags, then each kind's figures of
    it (harness/view/summary.py: ``latest``; latency's buckets, quality's scores)."""
    run = read_run(root / e.id)
    figures: list[Block | None] = []
    for k, s in summaries():
        if s.latest is None:
            continue
        other = (best.label(), best.parts[k.name]) if best is not None and best.id != e.id else None
        figures += s.latest(LatestRun(e.label(), report_of(run, k), e.parts[k.name], other))
    verdict = e.verdict or f"{fmt.DASH} (not gated: run harness gate RUN_DIR)"
    return section(
        "latest",
        f"Latest run: {e.label()}",
        text(f"verdict: {verdict}", tone=VERDICT_TONE.get(e.verdict or "", "plain")),
        text(*e.reasons, bullets=True),
        text(*(f.text for f in e.flags), tone="warn", bullets=True),
        *figures,
    )


def _group_sections(
    g: GroupView, i: int, count: int, changes: dict[str, list[str]]
) -> list[Section]:
    """One group's table, its score over runs and its waterfall (ids suffixed after the first)."""
    suffix = "" if i == 0 else f"-{i + 1}"
    best = g.best
    heading = "Runs (newest first; ★ marks the best)"
    if count > 1 or g.key.experiment:
        heading = f"Group {i + 1}/{count}: {g.key.label} (newest first; ★ marks its best)"
    table = ledger_table(
        list(reversed(g.entries)),
        best.id if best else None,
        not_ranked=g.not_ranked,
        changes=changes,
        key=f"ledger{suffix}",
    )
    score = score_over_runs(g.frontier, g.entries, key=f"score{suffix}")
    return [
        section(
            f"runs{suffix}",
            heading,
            text(best_text(g)),
            table,
            text("bucket columns: median latency in ms (scored mode)", tone="dim"),
        ),
        section(
            f"score{suffix}",
            f"Score over runs: {g.key.label}" if count > 1 else "Score over runs",
            _figure(score) or text("no run has a latency score yet"),
            _figure(waterfall_chart(g.steps, key=f"waterfall{suffix}")),
            text(frontier_text(g), tone="dim"),
        ),
    ]


def ledger_page(board: Board, root: Path, *, now: datetime | None = None) -> str:
    """Every group of runs: its table, score over runs, its frontier's waterfall; then the
    latest run's plots beside its group's best."""
    sections: list[Section] = []
    for i, g in enumerate(board.groups):
        sections += _group_sections(g, i, len(board.groups), board.changes)
    folded = fold_text(board)
    if folded:
        sections.append(section("folded", "Not in the table", text(*folded, tone="dim")))
    entries = board.entries
    if entries:
        latest = max(entries, key=lambda e: (e.time, e.id))
        group = next(g for g in board.groups if latest in g.entries)
        sections.append(_latest(latest, group.best, root))
    return html.page(
        "harness — run ledger",
        f"{len(entries)} runs in {len(board.groups)} group(s) in {root.name}/ledger.jsonl"
        f" · {_stamp(now)}",
        [html.sections(sections)],
    )


def run_page(folder: Path, e: LedgerEntry, *, now: datetime | None = None) -> str:
    """One run in detail: the verdict, the summary, then every report's own sections."""
    sections = [summary(e), *run_sections(read_run(folder))]
    return html.page(
        f"harness — run {e.label()}",
        _stamp(now),
        [html.verdict_line(e.verdict), html.sections(sections)],
    )
