"""The gate's steps on a rich console, as each command would have shown them."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from harness.conformance.model import CheckReport
from harness.conformance.render import ConsoleHooks as CheckConsole
from harness.conformance.render import render_report as render_check
from harness.errors import HarnessError
from harness.gate.hooks import GateHooks
from harness.latency.render import ConsoleHooks as LatencyConsole
from harness.latency.render import render_report as render_latency
from harness.latency.report import LatencyReport
from harness.quality.console import ConsoleHooks as QualityConsole
from harness.quality.render import render_report as render_quality
from harness.quality.report import QualityReport
from harness.throughput.render import ConsoleHooks as ThroughputConsole
from harness.throughput.render import render_report as render_throughput
from harness.throughput.report import ThroughputReport

if TYPE_CHECKING:
    from harness.image.package import PackageReport


class ConsoleGateHooks(GateHooks):
    def __init__(self, console: Console, *, profile: str, folder: str) -> None:
        self.console = console
        self.profile = profile
        self.folder = folder
        self._open: LatencyConsole | ThroughputConsole | QualityConsole | None = None
        self._bytes: Progress | None = None
        self._task: TaskID | None = None

    def step(self, name: str) -> None:
        self.console.print(f"[bold]gate ▸ {name}[/]")

    def step_end(self, name: str) -> None:
        if self._open is not None:
            self._open.close()  # a readiness spinner left by a step that raised
            self._open = None
        if self._bytes is not None:
            self._bytes.stop()
            self._bytes = None

    def say(self, text: str) -> None:
        self.console.print(text)

    def error(self, err: HarnessError) -> None:
        print(f"harness: error: {err.one_line()}", file=sys.stderr)

    def bytes(self, done: int, total: int) -> None:
        if self._bytes is None:
            self._bytes = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                DownloadColumn(binary_units=False),
                TransferSpeedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )
            self._bytes.start()
            self._task = self._bytes.add_task("save image", total=None)
        if self._task is not None:
            self._bytes.update(self._task, completed=done, total=total)

    def check(self) -> CheckConsole:
        return CheckConsole(self.console, self.profile)

    def latency(self) -> LatencyConsole:
        self._open = LatencyConsole(self.console)
        return self._open

    def throughput(self) -> ThroughputConsole:
        self._open = ThroughputConsole(self.console)
        return self._open

    def quality(self) -> QualityConsole:
        self._open = QualityConsole(self.console)
        return self._open

    def check_done(self, report: CheckReport) -> None:
        render_check(self.console, report, self.folder)

    def latency_done(self, report: LatencyReport) -> None:
        render_latency(self.console, report, self.folder)

    def throughput_done(self, report: ThroughputReport) -> None:
        render_throughput(self.console, report, self.folder)

    def quality_done(self, report: QualityReport) -> None:
        render_quality(self.console, report)
        self.console.print(f"run folder: {self.folder}")

    def package_done(self, report: PackageReport) -> None:
        from harness.image.console import render

        if self._bytes is not None:
            self._bytes.stop()
            self._bytes = None
        render(report, self.console)
        self.console.print(f"report: {self.folder}/{report.FILENAME}")
