"""What every command's console hooks share: the readiness spinner and the live bars.

A measurement core calls ``waiting`` → ``attempt``… → ``ready`` while it polls the
server, then ``measuring(True/False)`` around its requests; ``close`` stops the
spinner when the wait raised. Each command's ``ConsoleHooks`` inherits this and adds
its own progress callbacks (latency/console.py, throughput/console.py, quality/console.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.status import Status

if TYPE_CHECKING:  # the readiness wait loads aiohttp; a report's console never needs it
    from harness.client.readiness import ReadyResult

SAY_EVERY_S = 5.0  # a waiting line at most this often


class WaitingLines:
    """A readiness wait's line at the first poll that is not ready, then at most every
    :data:`SAY_EVERY_S` (a spinner alone shows nothing in a log or a pipe)."""

    def __init__(self) -> None:
        self._said_at: float | None = None

    def say(self, console: Console, url: str, elapsed_s: float, line: str) -> None:
        if self._said_at is None or elapsed_s - self._said_at >= SAY_EVERY_S:
            self._said_at = elapsed_s
            console.print(f"waiting for {url}: {line}")


class _Bars(Protocol):
    progress: Progress


class SpinnerAndBars:
    console: Console
    bars: _Bars
    _status: Status | None = None
    _url: str = ""
    _lines: WaitingLines = WaitingLines()

    def waiting(self, url: str) -> None:
        self._url = url
        self._lines = WaitingLines()
        self._status = self.console.status(f"waiting for {url} …")
        self._status.start()

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        """``last`` is what the poll saw, with the time waited (client/readiness.py); printed
        at the first poll that is not ready and then every :data:`SAY_EVERY_S` (a spinner
        alone shows nothing in a log or a pipe)."""
        if self._status is not None:
            self._status.update(f"waiting for {self._url}: {last}")
        self._lines.say(self.console, self._url, elapsed_s, last)

    def ready(self, result: ReadyResult) -> None:
        self.close()
        self.console.print(f"ready: {result.url} after {result.elapsed_s:.1f} s")

    def measuring(self, started: bool) -> None:
        if started:
            self.bars.progress.start()
        else:
            self.bars.progress.stop()

    def close(self) -> None:
        """Stop the spinner (ready, or the wait raised)."""
        if self._status is not None:
            self._status.stop()
            self._status = None


def byte_progress(console: Console) -> Progress:
    """A transient progress bar for byte streams (save, hash, upload): MB, MB/s, ETA."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        DownloadColumn(binary_units=False),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
