"""A caller's rule that may end a latency run early (``harness tune``'s race plugs in here).

The runner asks ``cfg.stop_rule.after(row)`` after every timed request (warm-ups are
never shown); a non-empty answer is the reason, and the run stops at once: the bucket
under way is left unfinished and no later bucket is measured. The report then says so
(``settings.stopped_by``, ``complete: false``, not the grader's procedure, a
``run_stopped`` flag): such a folder is never ranked (docs/timing.md, "A caller's stop
rule"). The latency package knows nothing of who decides.
"""

from __future__ import annotations

from typing import Protocol

from harness.latency.report import RequestRow
from harness.risk import FlagKind, RiskFlag


class StopRule(Protocol):
    def after(self, row: RequestRow) -> str | None:
        """One timed request ended (``row``, failures included): why to stop now, or None."""
        ...


def stopped_flag(why: str) -> RiskFlag:
    """The flag of a run a stop rule ended: partial, not the grader's procedure."""
    return RiskFlag(
        kind=FlagKind.RUN_STOPPED,
        text=f"latency stopped early by the caller's rule: {why}; an unfinished run, not "
        "the grader's procedure",
        source="latency",
    )
