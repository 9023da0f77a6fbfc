"""A quality run on a rich console: readiness spinner, one bar per benchmark, resume hint."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from harness.console_hooks import SpinnerAndBars
from harness.profiles import Benchmark
from harness.quality.decide_stats import ALPHA
from harness.quality.hooks import QualityHooks
from harness.quality.render import RichProgress, render_report
from harness.quality.report import QualityReport
from harness.quality.transport import ProgressSink


def _pct(p: float) -> str:
    return f"{p * 100:.2g} %"


def risk_words(risk: float | None, alpha: float = ALPHA) -> str:
    """A ``--decide`` look's risk in words: the bound on the chance that the full set
    lands on the other side of the threshold, were the gate decided now."""
    if risk is None:
        return "undecided"
    if risk <= 0.0:
        return "decided, certain: no answer still to come can change it"
    if risk <= alpha:
        return f"decided, error risk ≤ {_pct(risk)}"
    if risk >= 1.0:
        return f"undecided: more documents needed (an error risk ≤ {_pct(alpha)} decides)"
    return (
        f"undecided: deciding now would risk an error of up to {_pct(risk)} ({_pct(alpha)} allowed)"
    )


class ConsoleHooks(SpinnerAndBars, QualityHooks):
    bars: RichProgress

    def __init__(self, console: Console, *, resume_hint: str = "") -> None:
        self.console = console
        self.bars = RichProgress(console)
        self.resume_hint = resume_hint  # the command that resumes this run

    def progress(self, bench: Benchmark) -> ProgressSink:
        return self.bars.sink(bench)

    def looked(self, bench: Benchmark, asked: int, total: int, risk: float | None) -> None:
        self.console.print(f"{bench.title}: {asked}/{total} documents asked, {risk_words(risk)}")

    def note(self, text: str) -> None:
        self.console.print(text, soft_wrap=True)  # one line, however long: grep finds it

    def partial(self, path: Path) -> None:
        self.console.print(f"interrupted: partial report and answer cache in {path.parent}")
        if self.resume_hint:
            self.console.print(f"resume with: {self.resume_hint}")


def console_hooks(console: Console, profile: str) -> QualityHooks:
    """The kind record's console hooks (harness/kinds/record.py: ``KindConsole``)."""
    return ConsoleHooks(console)


def render_in(console: Console, report: QualityReport, folder: str) -> None:
    """The kind record's rendering: the report's sections, then its run folder."""
    render_report(console, report)
    console.print(f"run folder: {folder}")
