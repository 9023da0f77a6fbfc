"""The vocabulary of a rule audit, below the kinds: one :class:`RuleVerdict` per rule and
:class:`RuleReport`, the head of ``audit.json`` (docs/architecture.md, "Layers").

A rule's result is ``pass``, ``fail`` or ``inconclusive``; an inconclusive rule says why,
and whether that is by design (the server exports no counter to read: nothing is wrong)
or because its requests failed or its timings were too noisy (exit 3).

Two packages judge into these records: the audit against a server (harness/audit/, whose
``AuditReport`` adds the requests it sent) and AICAS's in-process audit
(harness/vlm/audit/, which writes the audit's report class it is given), so ``harness gate``
reads one ``audit.json`` whichever wrote it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from harness.report_base import Report


class RuleResult(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"


class RuleVerdict(BaseModel):
    """One rule's verdict and what it rests on."""

    model_config = ConfigDict(extra="forbid")

    rule: str  # its name in the profile's [audit] rules
    title: str
    result: RuleResult
    why: str  # one line, naming the cause
    by_design: bool = False  # inconclusive because the server cannot be asked, not broken
    evidence: dict[str, Any] = Field(default_factory=dict)

    @property
    def blocking(self) -> bool:
        return self.result is RuleResult.FAIL


class RuleReport(Report):
    """``audit.json``'s head: every rule the profile names, judged against one target, and
    what the judging cost. The audit's ``AuditReport`` adds the requests behind them."""

    SCHEMA_VERSION: ClassVar[int] = 1
    FILENAME: ClassVar[str] = "audit.json"

    kind: str = "audit"
    schema_version: int = 1
    url: str
    endpoint: str = ""
    # every route the audit sent to, the timed one (``endpoint``) first; empty in a report
    # of before it was kept (the views then name ``endpoint`` alone)
    routes: list[str] = Field(default_factory=list)
    seed: int = 0  # the unique heads' seed
    wall_s: float = 0.0
    readiness_s: float | None = None
    requests: int = 0  # generation requests sent (the audit's cost)
    counters_note: str | None = None  # why the server's counters could not be read
    counters: dict[str, float] = Field(default_factory=dict)  # /metrics deltas over the audit
    rules: list[RuleVerdict] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.blocking for r in self.rules)

    def failing(self) -> list[RuleVerdict]:
        return [r for r in self.rules if r.blocking]

    def broken(self) -> list[RuleVerdict]:
        """Inconclusive rules whose requests failed or timings were too noisy (not by design)."""
        return [r for r in self.rules if r.result is RuleResult.INCONCLUSIVE and not r.by_design]

    def summary_line(self) -> str:
        """What was judged, in one line: "every rule passes" only when every rule passed."""
        n = {r: sum(v.result is r for v in self.rules) for r in RuleResult}
        counts = (
            f"{n[RuleResult.PASS]} pass, {n[RuleResult.FAIL]} fail, "
            f"{n[RuleResult.INCONCLUSIVE]} inconclusive; {self.requests} requests "
            f"in {self.wall_s:.1f} s"
        )
        unsure = [v for v in self.rules if v.result is RuleResult.INCONCLUSIVE]
        if not self.rules:
            head = "no rule judged" + ("" if self.complete else " (interrupted)")
        elif not self.ok:
            head = f"{len(self.failing())} rule(s) FAIL"
        elif not unsure:
            head = "every rule passes"
        else:
            named = ", ".join(v.rule + (" (by design)" if v.by_design else "") for v in unsure)
            head = f"no rule fails — {len(unsure)} inconclusive: {named}"
        return f"{head} — {counts}"

    def exit_reason(self) -> str:
        """The command's exit code and why (harness/audit/core.py ``exit_code``'s policy)."""
        if not self.complete:
            return "interrupted: a partial report, no verdict (harness audit --resume DIR)"
        if not self.ok:
            return f"exit 1: {', '.join(v.rule for v in self.failing())} failed"
        broken = self.broken()
        if broken:
            return (
                f"exit 3: {', '.join(v.rule for v in broken)} could not be judged (their "
                "requests failed, their timings were too noisy, or the answers are not "
                "deterministic: the why column says which); no rule failed"
            )
        by_design = [v.rule for v in self.rules if v.result is RuleResult.INCONCLUSIVE]
        if by_design:
            return f"exit 0: no rule fails ({', '.join(by_design)}: nothing to judge, by design)"
        return "exit 0: every rule passes"
