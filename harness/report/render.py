"""Console output of ``harness report``: the ledger table, or one run's sections."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from harness.report.entry import LedgerEntry
from harness.report.folder import read_run
from harness.report.frontier import Frontier
from harness.report.sections import run_sections, summary
from harness.report.table import VERDICT_TONE, ledger_table, status
from harness.view import fmt
from harness.view.console import STYLE, print_sections, rich_table


def render_ledger(
    console: Console, entries: Sequence[LedgerEntry], fr: Frontier, where: str
) -> None:
    best = fr.best
    title = f"ledger: {where} (newest first; bucket columns: median latency, ms)"
    console.print(rich_table(ledger_table(entries, best.id if best else None, title)))
    if best is not None:
        console.print(
            f"★ best: [bold]{escape(best.label())}[/] {fmt.times(best.score)} (frontier over {fr.basis})"
        )
    else:
        console.print(f"no best run: {fr.basis}")


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
