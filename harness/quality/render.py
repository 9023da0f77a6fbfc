"""Console output for ``harness quality``: a progress bar per benchmark and the result tables."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from harness.profiles import Benchmark
from harness.quality.report import QualityReport
from harness.quality.views import sections
from harness.view.console import print_sections


def rate_text(asked: int, cached: int, elapsed_s: float | None) -> str:
    """Requests per second over the answers the server gave; answers from the cache take
    no time and are no rate: ``cached`` while nothing was asked yet."""
    if asked and elapsed_s:
        return f"{asked / elapsed_s:.2f} req/s"
    return "cached" if cached else "-"


class RichProgress:
    """One rich task per benchmark: done/total, requests/s of the answers asked, ETA."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<14}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>11}"),
            TextColumn("cached {task.fields[cached]} failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def sink(self, bench: Benchmark) -> _Sink:
        return _Sink(self.progress, bench.title)


class _Sink:
    def __init__(self, progress: Progress, title: str) -> None:
        self.progress = progress
        self.title = title
        self.task: TaskID | None = None
        self.cached = self.failed = self.asked = 0

    def start(self, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task(
                self.title, total=total, rate="-", cached=0, failed=0
            )
        else:  # lm-eval may call generate_until more than once per benchmark
            current = self.progress.tasks[self.task].total or 0
            self.progress.update(self.task, total=current + total)

    def advance(self, *, cached: bool, failed: bool) -> None:
        if self.task is None:
            self.start(0)
        assert self.task is not None
        self.cached += cached
        self.failed += failed
        self.asked += not cached
        task = self.progress.tasks[self.task]
        self.progress.update(
            self.task,
            advance=1,
            rate=rate_text(self.asked, self.cached, task.elapsed),
            cached=self.cached,
            failed=self.failed,
        )


def render_report(console: Console, report: QualityReport) -> None:
    print_sections(console, sections(report))
