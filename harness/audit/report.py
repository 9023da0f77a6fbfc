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

from harness.audit.continuation import Continuation
from harness.audit.paraphrase import Asked
from harness.audit.probe import Probe
from harness.audit.timed import TimedAnswer
from harness.report_base import Report

# the three prompts of a round: the grader's repeated filler and its two controls; and
# ``one_token``: the repeated prompt asked for one token, after the rounds (what its answer
# costs without decode: ``physically_possible``'s decode time, harness/audit/analysis.py)
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

    @property
    def ok(self) -> bool:
        return not any(r.blocking for r in self.rules)

    def failing(self) -> list[RuleVerdict]:
        return [r for r in self.rules if r.blocking]

    def broken(self) -> list[RuleVerdict]:
        """Inconclusive rules whose requests failed or timings were too noisy (not by design)."""
        return [r for r in self.rules if r.result is RuleResult.INCONCLUSIVE and not r.by_design]

    def summary_line(self) -> str:
        n = {r: sum(v.result is r for v in self.rules) for r in RuleResult}
        head = "every rule passes" if self.ok else f"{len(self.failing())} rule(s) FAIL"
        return (
            f"{head} — {n[RuleResult.PASS]} pass, {n[RuleResult.FAIL]} fail, "
            f"{n[RuleResult.INCONCLUSIVE]} inconclusive; {self.requests} requests "
            f"in {self.wall_s:.1f} s"
        )
