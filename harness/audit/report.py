"""The records of an audit: one :class:`Sample` per request sent, and :class:`AuditReport`
(``audit.json``): the rules' verdicts (harness/rule_report.py: ``RuleVerdict``,
``RuleReport``) and the requests they rest on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.audit.answered import answered, failures
from harness.audit.continuations.record import Continuation
from harness.audit.paraphrases.record import Asked
from harness.audit.probes.record import Probe
from harness.audit.timed_answer import TimedAnswer
from harness.rule_report import RuleReport

# the three prompts of a round: the grader's repeated filler and its two controls; and
# ``one_token``: the repeated prompt asked for one token, between the timed rounds (what its
# answer costs without decode: ``physically_possible``'s decode time,
# harness/audit/timed/possible.py)
Role = Literal["repeated", "near_filler", "unique_head", "one_token"]
Phase = Literal["warmup", "timed", "confirm", "third"]


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


class AuditReport(RuleReport):
    """``audit.json``: every rule the profile names, judged against one server
    (harness/rule_report.py), and every request the judging rests on."""

    samples: list[Sample] = Field(default_factory=list)
    probes: list[Probe] = Field(default_factory=list)  # the probe phase (one_stack, streams)
    continuations: list[Continuation] = Field(default_factory=list)  # complete_outputs' checks
    # benchmark_detection's quality half: the graders' items and their paraphrases
    paraphrases: list[Asked] = Field(default_factory=list)
    # the item files it read from harness's sample data, not the grader's (labelled: a
    # server keyed on the grader's items is not seen by them; harness/grader_items.py)
    sample_items: list[str] = Field(default_factory=list)

    def answered(self) -> int:
        """The requests that came back answered (a 2xx and a readable body): what the
        server's success counter is compared with (harness/audit/answered.py)."""
        return answered([*self.samples, *self.probes, *self.paraphrases], self.continuations)

    def failed(self) -> str | None:
        """The failed requests in one line by kind (``2 × HTTP 500 from /invocations``)."""
        groups: list[list[Any]] = [self.samples, self.probes, self.paraphrases, self.continuations]
        return failures(r.error for g in groups for r in g)
