"""``harness package``'s verdict on the console (also shown by ``gate --image``)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import Progress, TaskID
from rich.table import Table

from harness.console_hooks import byte_progress
from harness.image.config import PackageHooks
from harness.image.report import PackageReport
from harness.image.rules import human_bytes


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
    table = Table(title=f"package {report.archive}", show_lines=False)
    table.add_column("rule")
    table.add_column("status")
    table.add_column("detail")
    style = {"pass": "green", "fail": "bold red", "warn": "yellow"}
    for r in report.rules:
        table.add_row(r.rule, f"[{style[r.status]}]{r.status.upper()}[/]", r.detail)
    console.print(table)
    if report.mb_per_s is not None:
        console.print(
            f"saved {report.tar_bytes or 0:,} bytes → {report.compressed_bytes:,} bytes in "
            f"{report.seconds:.1f} s ({report.mb_per_s:.1f} MB/s, {report.compressor})"
        )
    console.print(f"sha256 {report.sha256}")
    render_sizes(report, console)
    verdict = "[green]PASS[/]" if report.passed else "[bold red]FAIL[/]"
    console.print(
        f"{verdict}: "
        + (
            "ready to submit"
            if report.passed
            else "; ".join(f"{r.rule}: {r.detail}" for r in report.failures())
        )
    )


def render_sizes(report: PackageReport, console: Console, *, top: int = 5) -> None:
    """The pre-flight size breakdown: largest layers and directories, then the hints."""
    sizes = report.sizes
    if sizes is None or not sizes.layers:
        return
    console.print(
        f"size: {human_bytes(sizes.total_bytes)} uncompressed in {len(sizes.layers)} layers"
    )
    for lay in sorted(sizes.layers, key=lambda x: -x.bytes)[:top]:
        step = (lay.created_by or "").replace("\n", " ")[:70]
        console.print(f"  layer {lay.index}: {human_bytes(lay.bytes)}  {step}", markup=False)
    for p in sizes.largest_paths[:top]:
        console.print(f"  {human_bytes(p.bytes):>14}  {p.path}  ({p.kind})", markup=False)
    for hint in sizes.hints:
        console.print(f"  hint: {hint}", markup=False)


def render_with_path(console: Console, report: PackageReport, folder: str) -> None:
    """The verdict, then where package.json is (the command and the gate show both)."""
    render(report, console)
    console.print(f"report: {folder}/{report.FILENAME}")
