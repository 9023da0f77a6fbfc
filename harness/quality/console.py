"""A quality run on a rich console: readiness spinner, one bar per benchmark, resume hint."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.status import Status

from harness.client.readiness import ReadyResult
from harness.profiles import Benchmark
from harness.quality.core import QualityHooks
from harness.quality.render import RichProgress
from harness.quality.transport import ProgressSink


class ConsoleHooks(QualityHooks):
    def __init__(self, console: Console, *, resume_hint: str = "") -> None:
        self.console = console
        self.bars = RichProgress(console)
        self.resume_hint = resume_hint  # the command that resumes this run
        self._status: Status | None = None

    def waiting(self, url: str) -> None:
        self._status = self.console.status(f"waiting for {url} …")
        self._status.start()

    def ready(self, result: ReadyResult) -> None:
        self.close()

    def measuring(self, started: bool) -> None:
        if started:
            self.bars.progress.start()
        else:
            self.bars.progress.stop()

    def progress(self, bench: Benchmark) -> ProgressSink:
        return self.bars.sink(bench)

    def partial(self, path: Path) -> None:
        self.console.print(f"interrupted: partial report and answer cache in {path.parent}")
        if self.resume_hint:
            self.console.print(f"resume with: {self.resume_hint}")

    def close(self) -> None:
        """Stop the spinner (ready, or the wait raised)."""
        if self._status is not None:
            self._status.stop()
            self._status = None
