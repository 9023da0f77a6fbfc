"""What a latency run tells its caller as it goes (the console's bars, the gate's lines):
:class:`LatencyHooks`, whose every method is a no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.hooks import ServerHooks
from harness.latency.config import LatencyConfig
from harness.latency.report import RequestRow
from harness.latency.until_ci import AnyLook
from harness.profiles import Bucket

if TYPE_CHECKING:
    from harness.latency.resume import Resumption


class LatencyHooks(ServerHooks):
    """Progress and console callbacks of a latency run; every one is a no-op here (the
    wait, ``measuring`` and ``partial``: harness/hooks.py)."""

    def bucket(self, mode: str, bucket: Bucket) -> None:
        """A (mode, bucket) starts."""

    def row(self, row: RequestRow, total: int) -> None:
        """One request ended; ``total`` requests in its bucket and phase."""

    def look(self, row: RequestRow, look: AnyLook, pct: float) -> None:
        """``--until-ci PCT``: the interval of the median (or ``--until-ci-at``'s percentile)
        after the timed request ``row``."""

    def repeat(self, index: int, total: int) -> None:
        """Repetition ``index`` of ``total`` starts (``--repeats``)."""

    def seed(self, cfg: LatencyConfig) -> None:
        """The strict prompts' seed is known (drawn or given): ``cfg.seed``."""

    def resuming(self, record: Resumption) -> None:
        """``--resume``: what an interrupted run left is kept (``record`` says what)."""


NO_HOOKS = LatencyHooks()
