"""Console rendering of a sweep: a progress bar per level and phase, then the tables."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.client.failure import describe
from harness.client.records import RequestRecord
from harness.console_hooks import SpinnerAndBars
from harness.throughput.hooks import ThroughputHooks
from harness.throughput.report import Phase, RequestRow, ThroughputReport
from harness.throughput.views import sections
from harness.view.console import print_sections


class SweepProgress:
    """One bar per (level, phase): requests done, failures, live output tok/s."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task: object = None
        self._failed = 0
        self._chars = 0
        self._tokens = 0  # verified prompt + completion tokens (official mode)
        self._start_ns = 0

    def on_start(self, level: int, phase: str, total: int) -> None:
        self._failed = self._chars = self._tokens = 0
        self._start_ns = 0
        self._task = self.progress.add_task(f"c={level:<3} {phase:6}", total=total, stats="")

    def on_done(self, level: int, phase: str, rec: RequestRecord) -> None:
        if not self._start_ns:
            self._start_ns = rec.send_ns
        if rec.ok:
            self._chars += len(rec.text) + len(rec.reasoning)
        else:
            self._failed += 1
        secs = max(1e-9, ((rec.end_ns or rec.send_ns) - self._start_ns) / 1e9)
        # characters/4 is only a live estimate; the table shows verified token counts
        stats = f"~{self._chars / 4 / secs:,.0f} out tok/s"
        if self._failed:
            stats += f"  [red]{self._failed} failed[/]"
        self.progress.update(self._task, advance=1, stats=stats)  # type: ignore[arg-type]

    def on_row(self, level: int, phase: str, row: RequestRow) -> None:
        """A request of the grader's loop ended: the bar advances; verified tokens so far."""
        if row.ok:
            self._tokens += (row.output_tokens or 0) + (row.prompt_tokens or 0)
        else:
            self._failed += 1
        secs = max(1e-9, (row.end_ms or 0.0) / 1000)  # end_ms: from the level's wall start
        stats = f"~{self._tokens / secs:,.0f} tok/s"
        if self._failed:
            stats += f"  [red]{self._failed} failed[/]"
        self.progress.update(self._task, advance=1, stats=stats)  # type: ignore[arg-type]

    @contextmanager
    def live(self) -> Iterator[SweepProgress]:
        with self.progress:
            yield self


def no_success_line(rep: ThroughputReport) -> str | None:
    """One line for a sweep whose level had no successful request (exit 3): the levels, the
    first failure in the server's words with what to do; None when every level had one."""
    dead = [lv.concurrency for lv in rep.levels if lv.n_ok == 0]
    if not dead:
        return None
    levels = ", ".join(f"c={c}" for c in dead)
    first = next((r for r in rep.requests if not r.ok and r.level in dead), None)
    if first is None:
        return f"no request succeeded at {levels} — check --url and the server's log"
    said = describe(first.status, first.error, first.error_body, endpoint=rep.endpoint)
    return (
        f"no request succeeded at {levels}: {said} — check --url, the model the server serves"
        " (harness check) and its log"
    )


def render_report(console: Console, rep: ThroughputReport, folder: str) -> None:
    print_sections(console, sections(rep))
    if rep.chart:
        console.print(f"chart: {folder}/{rep.chart}")
    console.print(f"report: {folder}/throughput.json")


class ConsoleHooks(SpinnerAndBars, ThroughputHooks):
    """A sweep on a rich console: readiness spinner, live bars, the partial-save line."""

    bars: SweepProgress

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bars = SweepProgress(console)

    def level(self, level: int, phase: Phase, total: int) -> None:
        self.bars.on_start(level, phase, total)

    def done(self, level: int, phase: Phase, record: RequestRecord) -> None:
        self.bars.on_done(level, phase, record)

    def graded(self, level: int, phase: Phase, row: RequestRow) -> None:
        self.bars.on_row(level, phase, row)

    def partial(self, path: Path) -> None:
        print(f"harness: partial throughput report saved: {path}", file=sys.stderr)


def console_hooks(console: Console, profile: str) -> ThroughputHooks:
    """The kind record's console hooks (harness/kinds/record.py: ``KindConsole``)."""
    return ConsoleHooks(console)
