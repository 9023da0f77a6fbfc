"""What the gate tells its caller while it measures: the step, each core's hooks, errors.

Every method is a no-op here (tests, scripts); the console version is
``harness.gate.console.ConsoleGateHooks``. Per-kind behaviour comes from the
kind's record (harness/kinds/record.py), never from a method per kind.
"""

from __future__ import annotations

from typing import Any

from harness.errors import HarnessError
from harness.kinds.record import MeasurementKind
from harness.report_base import Report


class GateHooks:
    def step(self, name: str) -> None:
        """A step (check, latency, ..., package) starts."""

    def step_end(self, name: str) -> None:
        """That step ended, however it ended."""

    def say(self, text: str) -> None:
        """A line for the user (rich markup)."""

    def error(self, err: HarnessError) -> None:
        """A step stopped with an error; the gate goes on to the next one."""

    def hooks(self, kind: MeasurementKind[Any, Any, Any, Any]) -> Any:
        """The hooks the kind's core is run with (its silent ones here)."""
        return kind.no_hooks

    def done(self, kind: MeasurementKind[Any, Any, Any, Any], report: Report) -> None:
        """The kind's core returned its (saved) report."""


NO_HOOKS = GateHooks()
