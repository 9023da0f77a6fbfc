"""``harness package``'s verdict on the console (also shown by ``gate --image``)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import Progress, TaskID

from harness.console_hooks import byte_progress
from harness.image.hooks import PackageHooks
from harness.image.report import PackageReport
from harness.image.views import sections
from harness.view.console import print_sections


class ConsoleHooks(PackageHooks):
    """The archive being saved, as a byte progress bar (``close`` removes it)."""

    def __init__(self, console: Console, description: str = "save image") -> None:
        self.console = console
        self.description = description
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def bytes(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = byte_progress(self.console)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=None)
        if self._task is not None:
            self._bar.update(self._task, completed=done, total=total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def render(report: PackageReport, console: Console) -> None:
    print_sections(console, sections(report))


def render_with_path(console: Console, report: PackageReport, folder: str) -> None:
    """The verdict, then where package.json is (the command and the gate show both)."""
    render(report, console)
    console.print(f"report: {folder}/{report.FILENAME}")


def console_hooks(console: Console, profile: str) -> PackageHooks:
    """The kind record's console hooks (harness/kinds/record.py: ``KindConsole``)."""
    return ConsoleHooks(console)
