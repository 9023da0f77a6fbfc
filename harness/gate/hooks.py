"""What the gate tells its caller while it measures: the step, each core's hooks, errors.

Every method is a no-op here (tests, scripts); the console version is
``harness.gate.console.ConsoleGateHooks``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.conformance.core import NO_HOOKS as NO_CHECK_HOOKS
from harness.conformance.core import CheckHooks
from harness.conformance.model import CheckReport
from harness.errors import HarnessError
from harness.latency.core import NO_HOOKS as NO_LATENCY_HOOKS
from harness.latency.core import LatencyHooks
from harness.latency.report import LatencyReport
from harness.quality.core import NO_HOOKS as NO_QUALITY_HOOKS
from harness.quality.core import QualityHooks
from harness.quality.report import QualityReport
from harness.throughput.core import NO_HOOKS as NO_THROUGHPUT_HOOKS
from harness.throughput.core import ThroughputHooks
from harness.throughput.report import ThroughputReport

if TYPE_CHECKING:  # the package module imports docker: only gate --image needs it
    from harness.image.package import PackageReport


class GateHooks:
    def step(self, name: str) -> None:
        """A step (check, latency, ..., package) starts."""

    def step_end(self, name: str) -> None:
        """That step ended, however it ended."""

    def say(self, text: str) -> None:
        """A line for the user (rich markup)."""

    def error(self, err: HarnessError) -> None:
        """A step stopped with an error; the gate goes on to the next one."""

    def bytes(self, done: int, total: int) -> None:
        """Packaging progress: ``done`` of ``total`` bytes saved."""

    def check(self) -> CheckHooks:
        return NO_CHECK_HOOKS

    def latency(self) -> LatencyHooks:
        return NO_LATENCY_HOOKS

    def throughput(self) -> ThroughputHooks:
        return NO_THROUGHPUT_HOOKS

    def quality(self) -> QualityHooks:
        return NO_QUALITY_HOOKS

    def check_done(self, report: CheckReport) -> None: ...

    def latency_done(self, report: LatencyReport) -> None: ...

    def throughput_done(self, report: ThroughputReport) -> None: ...

    def quality_done(self, report: QualityReport) -> None: ...

    def package_done(self, report: PackageReport) -> None: ...


NO_HOOKS = GateHooks()
