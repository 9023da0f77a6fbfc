"""Console output of ``harness check``: a live line per finished check, then the table."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from harness.conformance.context import CheckConfig
from harness.conformance.hooks import CheckHooks
from harness.conformance.report import Check, CheckReport
from harness.conformance.views import result_cell, sections
from harness.console_hooks import WaitingLines
from harness.view.console import STYLE, print_sections


def progress_line(console: Console, check: Check) -> None:
    cell = result_cell(check)
    line = Text("  ")
    line.append(cell.text, style=STYLE[cell.tone])
    line.append(f" {check.name} ")
    line.append(f"({check.duration_ms / 1000:.1f} s)", style="dim")
    console.print(line)


def render_report(console: Console, report: CheckReport, folder: str) -> None:
    print_sections(console, sections(report))
    console.print(f"report: {folder}/check.json", style="dim")


class ConsoleHooks(CheckHooks):
    """A check run on a rich console: one line per judged check, the partial-save line."""

    def __init__(self, console: Console, profile: str) -> None:
        self.console = console
        self.profile = profile
        self._ready_url = ""
        self._lines = WaitingLines()

    def starting(self, cfg: CheckConfig, n_checks: int) -> None:
        self._ready_url = cfg.url + cfg.ready_path
        self.console.print(f"checking {cfg.url} ({n_checks} checks, profile {self.profile})")

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        self._lines.say(self.console, self._ready_url, elapsed_s, last)

    def result(self, check: Check) -> None:
        progress_line(self.console, check)

    def partial(self, path: Path) -> None:
        print(f"harness: partial check report saved: {path}", file=sys.stderr)
