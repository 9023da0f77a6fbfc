"""The gate's steps on a rich console, as each command would have shown them."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from harness.errors import HarnessError
from harness.gate.hooks import GateHooks
from harness.kinds.record import Closable, MeasurementKind
from harness.report_base import Report


class ConsoleGateHooks(GateHooks):
    def __init__(self, console: Console, *, profile: str, folder: str) -> None:
        self.console = console
        self.profile = profile
        self.folder = folder
        self._open: Closable | None = None

    def step(self, name: str) -> None:
        self.console.print(f"[bold]gate ▸ {name}[/]")

    def step_end(self, name: str) -> None:
        if self._open is not None:
            self._open.close()  # a spinner or bar left by a step that raised
            self._open = None

    def say(self, text: str) -> None:
        self.console.print(text)

    def error(self, err: HarnessError) -> None:
        print(f"harness: error: {err.one_line()}", file=sys.stderr)

    def hooks(self, kind: MeasurementKind[Any, Any, Any, Any]) -> Any:
        if kind.console is None:
            return kind.no_hooks
        hooks = kind.console.make_hooks(self.console, self.profile)
        if isinstance(hooks, Closable):
            self._open = hooks
        return hooks

    def done(self, kind: MeasurementKind[Any, Any, Any, Any], report: Report) -> None:
        if self._open is not None:
            self._open.close()
            self._open = None
        if kind.console is not None:
            kind.console.show(self.console, report, self.folder)
