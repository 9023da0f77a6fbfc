"""Console output of ``harness check``: a live line per finished check, then the table."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.conformance.context import CheckConfig
from harness.conformance.core import CheckHooks
from harness.conformance.model import Check, CheckReport, Result

STYLE = {
    Result.PASS: "green",
    Result.FAIL: "bold red",
    Result.WARN: "yellow",
    Result.SKIP: "dim",
}


def result_cell(check: Check) -> str:
    label = check.result.value.upper()
    if check.result is Result.FAIL and not check.required:
        label += " (not required)"
    return f"[{STYLE[check.result]}]{label}[/]"


def progress_line(console: Console, check: Check) -> None:
    console.print(f"  {result_cell(check)} {check.name} [dim]({check.duration_ms / 1000:.1f} s)[/]")


def render_report(console: Console, report: CheckReport, folder: str) -> None:
    table = Table(title=f"harness check — {report.url}", title_justify="left", expand=False)
    table.add_column("check", no_wrap=True)
    table.add_column("req", justify="center")
    table.add_column("result", no_wrap=True)
    table.add_column("reason", overflow="fold")
    for c in report.checks:
        table.add_row(c.name, "●" if c.required else "", result_cell(c), escape(c.reason))
    console.print(table)
    style = "green" if report.ok else "bold red"
    console.print(f"[{style}]{escape(report.summary_line())}[/]")
    for c in report.failing_required():
        console.print(f"[red]✗ {c.name}[/]: {escape(c.reason)}")
    console.print(
        f"[dim]model {report.model}, tokenizer {report.tokenizer}; report: {folder}/check.json[/]"
    )


class ConsoleHooks(CheckHooks):
    """A check run on a rich console: one line per judged check, the partial-save line."""

    def __init__(self, console: Console, profile: str) -> None:
        self.console = console
        self.profile = profile

    def starting(self, cfg: CheckConfig, n_checks: int) -> None:
        self.console.print(f"checking {cfg.url} ({n_checks} checks, profile {self.profile})")

    def result(self, check: Check) -> None:
        progress_line(self.console, check)

    def partial(self, path: Path) -> None:
        print(f"harness: partial check report saved: {path}", file=sys.stderr)
