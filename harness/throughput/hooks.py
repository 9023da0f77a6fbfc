"""What a sweep tells its caller as it goes (the console's bars, the gate's lines):
:class:`ThroughputHooks`, whose every method is a no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from harness.client.records import RequestRecord
from harness.hooks import ServerHooks
from harness.throughput.report import Phase, RequestRow


class ThroughputHooks(ServerHooks):
    """Progress and console callbacks of a sweep; every one is a no-op here (the wait,
    ``measuring`` and ``partial``: harness/hooks.py)."""

    def level(self, level: int, phase: Phase, total: int) -> None:
        """A level's warm-up or timed phase starts with ``total`` requests."""

    def done(self, level: int, phase: Phase, record: RequestRecord) -> None:
        """One request of that phase ended (strict mode)."""

    def graded(self, level: int, phase: Phase, row: RequestRow) -> None:
        """One request of the grader's loop ended (official mode)."""


NO_HOOKS = ThroughputHooks()
