"""The records of an audit: one :class:`Sample` per request sent, one :class:`RuleVerdict`
per rule, and :class:`AuditReport` (``audit.json``).

A rule's result is ``pass``, ``fail`` or ``inconclusive``; an inconclusive rule says why,
and whether that is by design (the server exports no counter to read: nothing is wrong)
or because its requests failed or its timings were too noisy (exit 3).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.answered import answered, failures
from harness.audit.continuation import Continuation
from harness.audit.paraphrase import Asked
from harness.audit.probe import Probe
from harness.audit.timed import TimedAnswer
from harness.report_base import Report

# the three prompts of a round: the grader's repeated filler and its two controls; and
# ``one_token``: the repeated prompt asked for one token, between the timed rounds (what its
# answer costs without decode: ``physically_possible``'s decode time,
# harness/audit/analysis.py)
Role = Literal["repeated", "near_filler", "unique_head", "one_token"]
Phase = Literal["warmup", "timed", "confirm"]


class RuleResult(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"


class Sample(TimedAnswer, BaseModel):
    """One request of the audit, sent as the grader sends its latency requests."""

    model_config = ConfigDict(extra="forbid")

    bucket: str
    role: Role
    phase: Phase
    round: int
    prompt_tokens: int
    e2e_ms: float | None = None  # the grader's timer: before json.dumps → after json.loads
    output_tokens: int | None = None  # usage.completion_tokens, else the text re-tokenised
    text_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    # a hash of the answer's text, kept when the grader samples (temperature > 0): an honest
    # server's answers to one prompt differ, a replayed one's do not; left out of audit.json
    # when not kept (an Efficient Qwen audit's file is as it was)
    answer_digest: str | None = Field(default=None, exclude_if=lambda v: v is None)


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


class AuditReport(Report):
    """``audit.json``: every rule the profile names, judged against one server."""

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
    samples: list[Sample] = Field(default_factory=list)
    probes: list[Probe] = Field(default_factory=list)  # the probe phase (one_stack, streams)
    continuations: list[Continuation] = Field(default_factory=list)  # complete_outputs' checks
    # benchmark_detection's quality half: the graders' items and their paraphrases
    paraphrases: list[Asked] = Field(default_factory=list)
    # the item files it read from harness's sample data, not the grader's (labelled: a
    # server keyed on the grader's items is not seen by them; harness/grader_items.py)
    sample_items: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(r.blocking for r in self.rules)

    def failing(self) -> list[RuleVerdict]:
        return [r for r in self.rules if r.blocking]

    def broken(self) -> list[RuleVerdict]:
        """Inconclusive rules whose requests failed or timings were too noisy (not by design)."""
        return [r for r in self.rules if r.result is RuleResult.INCONCLUSIVE and not r.by_design]

    def answered(self) -> int:
        """The requests that came back answered (a 2xx and a readable body): what the
        server's success counter is compared with (harness/audit/answered.py)."""
        return answered([*self.samples, *self.probes, *self.paraphrases], self.continuations)

    def failed(self) -> str | None:
        """The failed requests in one line by kind (``2 × HTTP 500 from /invocations``)."""
        groups: list[list[Any]] = [self.samples, self.probes, self.paraphrases, self.continuations]
        return failures(r.error for g in groups for r in g)

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
