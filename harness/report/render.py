"""Console output of ``harness report``: the ledger table, or one run's sections."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape

from harness.report.board import Board, GroupView
from harness.report.entry import LedgerEntry
from harness.report.folder import read_run
from harness.report.sections import run_sections, summary
from harness.report.table import VERDICT_TONE, ledger_table, status
from harness.view import fmt
from harness.view.console import STYLE, print_sections, rich_table


def best_text(g: GroupView) -> str:
    """``★ best: NAME 2.50× (frontier over …)``, or why there is none (plain text)."""
    best, fr = g.best, g.frontier
    if best is not None:
        return f"★ best: {best.label()} {fmt.times(best.score)} (frontier over {fr.basis})"
    if g.not_ranked and any(e.score is not None for e in g.entries):
        return "no best run: no scored run of this group is ranked (see 'not ranked')"
    return f"no best run: {fr.basis}"


def frontier_text(g: GroupView) -> str:
    """``frontier: base → cache (enable_prefix_caching false → true) → tp2 (tp 1 → 2)``, when
    manifests say what changed at some step ('' otherwise)."""
    if not any(g.step_diffs):
        return ""
    parts = [
        p.short_label() + (f" ({'; '.join(d)})" if d else "")
        for p, d in zip(g.frontier.points, g.step_diffs, strict=True)
    ]
    return "frontier: " + " → ".join(parts)


def fold_text(board: Board) -> list[str]:
    """The lines below the groups: folded folders, hidden runs."""
    lines = [f"not in the table: {board.folded} (no measurement)"] if board.folded else []
    if board.hidden:
        lines.append(f"{board.hidden} hidden run(s) left out (--all shows them)")
    return lines


def render_ledger(console: Console, board: Board, where: str) -> None:
    """One table per group (newest group first), each with its own ★ best."""
    many = len(board.groups) > 1
    for i, g in enumerate(board.groups):
        title = f"ledger: {where} (newest first; bucket columns: median latency, ms)"
        if many or g.key.experiment:
            title = f"group {i + 1}/{len(board.groups)}: {g.key.label} — {title}"
        best = g.best
        table = ledger_table(
            list(reversed(g.entries)),
            best.id if best else None,
            title,
            not_ranked=g.not_ranked,
            changes=board.changes,
        )
        console.print(rich_table(table))
        line = escape(best_text(g))
        if best is not None:
            line = line.replace(escape(best.label()), f"[bold]{escape(best.label())}[/]", 1)
        console.print(line)
        if steps := frontier_text(g):
            console.print(escape(steps))
    for text in fold_text(board):
        console.print(f"[dim]{escape(text)}[/]")


def render_run(console: Console, e: LedgerEntry, folder: Path | None = None) -> None:
    """The run's headline, its summary and, given its folder, every report's sections."""
    named = f" ({escape(e.id)})" if e.name else ""
    console.print(f"[bold]{escape(e.label())}[/]{named} · {escape(e.server.label())}")
    if e.verdict is None:
        verdict = "verdict: — (not gated; run harness gate RUN_DIR)"
    else:
        verdict = f"verdict: [{STYLE[VERDICT_TONE.get(e.verdict, 'plain')]} bold]{e.verdict}[/]"
    console.print(verdict + f" · {status(e)}" + ("" if e.complete else " · partial reports"))
    sections = [summary(e), *(run_sections(read_run(folder)) if folder is not None else [])]
    print_sections(console, sections, titles=True)
