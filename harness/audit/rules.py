"""The audit's rules, once, in order: ``RULES`` (docs/audit.md, "Adding a rule").

Each record (harness/audit/rule.py) binds an entry of harness/audit_catalogue.py (name,
title, phases, route needs, docs, gate flag: what the profile, the gate and the help read)
to its judge and second-look test, written in its phase's room: the rounds'
(harness/audit/timed/rules.py), the probe phase's (harness/audit/probes/rules.py), the
continuations' (harness/audit/continuations/rule.py); AICAS's in-process rule is judged by ``harness
vlm audit`` (harness/vlm/audit/judge.py), so its record has no judge here.

Everything that used to name rules is read off this tuple: the judging (every rule the
profile names, one verdict each, in the profile's order), the phases a profile's rules
need sent and when a phase sends its second (and third) set, ``harness audit --help``; the profile's
rule list, the prompt-route rules and the gate's flags read the catalogue, which
tests/unit/test_audit_rules.py holds to agree with this tuple entry by entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.audit.continuations.rule import COMPLETE
from harness.audit.probes.record import Probe
from harness.audit.probes.rules import STACK, STREAMS
from harness.audit.report import Sample
from harness.audit.rule import AuditRule, Measured
from harness.audit.timed.rules import CACHED, DETECTION, POSSIBLE
from harness.audit_catalogue import HARD_CODED_ANSWERS, RulePhase
from harness.profiles import AuditSpec
from harness.rule_report import RuleVerdict

RULES: tuple[AuditRule, ...] = (
    CACHED,
    DETECTION,
    POSSIBLE,
    STACK,
    STREAMS,
    COMPLETE,
    AuditRule(HARD_CODED_ANSWERS, judge=None),  # judged in-process: harness vlm audit
)


def rules() -> tuple[AuditRule, ...]:
    """``RULES`` as it is now (read at call time: a test may add a record)."""
    return RULES


def judged_here() -> list[AuditRule]:
    """The rules ``harness audit`` judges (those with a judge), in order."""
    return [r for r in rules() if r.judge is not None]


def of_phase(phase: RulePhase) -> list[AuditRule]:
    """Every rule harness audit judges whose requests ``phase`` sends, named or not."""
    return [r for r in judged_here() if phase in r.phases]


def chosen(spec: AuditSpec, phase: RulePhase | None = None) -> list[AuditRule]:
    """The rules the profile names that harness audit judges (whose requests ``phase``
    sends, when given), in ``RULES``' order."""
    return [
        r for r in judged_here() if r.name in spec.rules and (phase is None or phase in r.phases)
    ]


def wants_second_look(
    m: Measured, phase: RulePhase, among: Sequence[AuditRule] | None = None
) -> bool:
    """A rule whose requests ``phase`` sends asks for that phase's second set, from what it
    sent so far (``m``: that phase's part); ``among``: the rules asked (default: the ones
    the profile names)."""
    asked = chosen(m.spec, phase) if among is None else among
    return any(r.second_look is not None and r.second_look(m) for r in asked)


def wants_third_look(
    m: Measured, phase: RulePhase, among: Sequence[AuditRule] | None = None
) -> bool:
    """As :func:`wants_second_look`, for a third set after the second (``m``: both)."""
    asked = chosen(m.spec, phase) if among is None else among
    return any(r.third_look is not None and r.third_look(m) for r in asked)


def in_profile_order(spec: AuditSpec, verdicts: Sequence[RuleVerdict]) -> list[RuleVerdict]:
    """The report's order: the profile's (a verdict it does not name last)."""
    order: dict[str, int] = {rule: i for i, rule in enumerate(spec.rules)}
    return sorted(verdicts, key=lambda v: order.get(v.rule, len(order)))


def judge_all(m: Measured, phase: RulePhase | None = None) -> list[RuleVerdict]:
    """One verdict per rule the profile names (whose requests ``phase`` sends, when given),
    in the profile's order."""
    return in_profile_order(m.spec, [r.judge(m) for r in chosen(m.spec, phase) if r.judge])


def judge(
    spec: AuditSpec,
    buckets: Mapping[str, Sequence[Sample]],
    counters: dict[str, float],
    answered: int,
    counters_note: str | None = None,
    temperature: float = 0.0,
    failed: str | None = None,
) -> list[RuleVerdict]:
    """The rounds' rules the profile names over their samples alone, in its order (what a
    bench or a test of the rounds judges); ``temperature``: the grader's; ``answered`` /
    ``failed``: the audit's requests answered, and the others in one line."""
    m = Measured(spec, buckets, counters, answered, counters_note, temperature, failed)
    return judge_all(m, "timed")


def judge_probes(
    spec: AuditSpec, probes: Sequence[Probe], usage_tolerance: int = 4
) -> list[RuleVerdict]:
    """The probe phase's rules the profile names (``usage_tolerance``: the profile's, in
    tokens), in its order."""
    return judge_all(Measured(spec, probes=probes, usage_tolerance=usage_tolerance), "probes")
