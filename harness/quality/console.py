"""A quality run on a rich console: readiness spinner, one bar per benchmark, resume hint."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from harness.console_hooks import SpinnerAndBars
from harness.profiles import Benchmark
from harness.quality.hooks import QualityHooks
from harness.quality.render import RichProgress
from harness.quality.transport import ProgressSink


class ConsoleHooks(SpinnerAndBars, QualityHooks):
    bars: RichProgress

    def __init__(self, console: Console, *, resume_hint: str = "") -> None:
        self.console = console
        self.bars = RichProgress(console)
        self.resume_hint = resume_hint  # the command that resumes this run

    def progress(self, bench: Benchmark) -> ProgressSink:
        return self.bars.sink(bench)

    def looked(self, bench: Benchmark, asked: int, total: int, risk: float | None) -> None:
        shown = "-" if risk is None else f"{risk:.2g}"
        self.console.print(f"{bench.title}: {asked}/{total} documents asked, risk {shown}")

    def partial(self, path: Path) -> None:
        self.console.print(f"interrupted: partial report and answer cache in {path.parent}")
        if self.resume_hint:
            self.console.print(f"resume with: {self.resume_hint}")
