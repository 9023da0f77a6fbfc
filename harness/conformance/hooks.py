"""What a check run tells its caller as it goes (the console's lines, the gate's):
:class:`CheckHooks`, whose every method is a no-op here, and :data:`NO_HOOKS`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.conformance.report import Check
from harness.hooks import ReadinessHooks

if TYPE_CHECKING:  # the config's module holds the HTTP context: imported when checks run
    from harness.conformance.context import CheckConfig


class CheckHooks(ReadinessHooks):
    """Console callbacks of a check run; every one is a no-op here (``attempt`` and
    ``partial``: harness/hooks.py)."""

    def starting(self, cfg: CheckConfig, n_checks: int) -> None:
        """The checks are about to run."""

    def result(self, check: Check) -> None:
        """One check was judged."""


NO_HOOKS = CheckHooks()
