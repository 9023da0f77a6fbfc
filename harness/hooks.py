"""The no-op callbacks every measurement core tells its caller through, written once.

A core calls its hooks as it goes (the readiness wait, each request, the
partial-save notice); the hooks here do nothing, so tests and the gate's silent
steps call the cores with them. Each kind's hooks class (``LatencyHooks``,
``CheckHooks``, …) derives from one of these and adds its own callbacks; its
console version overrides them (docs/architecture.md, "Hooks").
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.client.readiness import ReadyResult


class RunHooks:
    """What every core says: that it stopped early and where its partial report is."""

    def partial(self, path: Path) -> None:
        """The run stopped early; what it measured is saved at ``path``."""


class ReadinessHooks(RunHooks):
    """A core that polls its server until it is ready."""

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        """One readiness poll was not ready: ``last`` says what it saw, with the time."""


class ServerHooks(ReadinessHooks):
    """A core that waits for its server, then measures it: the wait's start and end, and
    the measuring's."""

    def waiting(self, url: str) -> None:
        """Readiness polling starts on ``url``."""

    def ready(self, result: ReadyResult) -> None:
        """The server answered 200 on its ready path."""

    def measuring(self, started: bool) -> None:
        """The measuring starts (True) or has stopped, done or not (False)."""
