"""The record of an audit rule (docs/audit.md, "Adding a rule"): its catalogue entry
(harness/audit_catalogue.py: name, title, phases, route needs, docs, gate flag) bound to
its judge and its second-look test, over :class:`Measured`, what the audit's phases sent
and read. harness/audit/rules.py lists the records once, in order (``RULES``).

A judge is a pure function of :class:`Measured` to one :class:`RuleVerdict`; a rule judged
elsewhere (AICAS's ``hard_coded_answers``, in-process: ``harness vlm audit``) has none,
so the audit never imports the VLM package. A second-look test says, from what a phase
sent so far, that the phase must send a second, independent set before the rule may fail
on it; a third-look test, from both, that a third must decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from harness.audit.continuations.record import Continuation
from harness.audit.paraphrases.record import Asked
from harness.audit.probes.record import Probe
from harness.audit.report import Sample
from harness.audit_catalogue import RuleEntry, RulePhase
from harness.profiles import AuditSpec
from harness.risk import FlagKind
from harness.rule_report import RuleVerdict


@dataclass(frozen=True)
class Measured:
    """What the audit's phases sent and read, as the judges see it; a phase's sender asks a
    second-look test with its own part alone (the rest empty)."""

    spec: AuditSpec
    buckets: Mapping[str, Sequence[Sample]] = field(default_factory=dict)  # in workload order
    counters: dict[str, float] = field(default_factory=dict)  # /metrics deltas over the audit
    answered: int = 0  # the audit's requests answered (harness/audit/answered.py)
    counters_note: str | None = None
    temperature: float = 0.0  # the grader's
    failed: str | None = None  # the failed requests, in one line
    probes: Sequence[Probe] = ()
    usage_tolerance: int = 4  # the profile's, in tokens
    continuations: Sequence[Continuation] = ()
    paraphrases: Sequence[Asked] = ()


Judge = Callable[[Measured], RuleVerdict]
SecondLook = Callable[[Measured], bool]


@dataclass(frozen=True)
class AuditRule:
    about: RuleEntry
    judge: Judge | None  # None: judged in-process, by harness vlm audit
    second_look: SecondLook | None = None  # its phase's second set: when this says so
    # its phase's third set, after the second: when this says so (the two looks agree, but
    # too narrowly to fail on: benchmark detection's marginal double split)
    third_look: SecondLook | None = None

    @property
    def name(self) -> str:
        return self.about.name

    @property
    def title(self) -> str:
        return self.about.title

    @property
    def phases(self) -> tuple[RulePhase, ...]:
        return self.about.phases

    @property
    def phase(self) -> RulePhase:
        return self.about.phase

    @property
    def prompt_route(self) -> bool:
        return self.about.prompt_route

    @property
    def docs(self) -> tuple[str, ...]:
        return self.about.docs

    @property
    def flag(self) -> FlagKind | None:
        return self.about.flag
