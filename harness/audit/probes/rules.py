"""The probe phase's rules (``one_stack``, ``stream_consistency``; docs/audit.md), judged
after the rounds' rules and put in the profile's order with them."""

from __future__ import annotations

from collections.abc import Sequence

from harness.audit.probes.record import Probe
from harness.audit.probes.stack import one_stack
from harness.audit.probes.stream import stream_consistency
from harness.profiles import AuditSpec
from harness.rule_report import RuleVerdict

PROBE_RULES = ("one_stack", "stream_consistency")


def judge_probes(
    spec: AuditSpec, probes: Sequence[Probe], usage_tolerance: int = 4
) -> list[RuleVerdict]:
    """Every probe rule the profile names (``usage_tolerance``: the profile's, in tokens)."""
    out: list[RuleVerdict] = []
    for rule in spec.rules:
        if rule == "one_stack":
            out.append(one_stack(probes, spec))
        elif rule == "stream_consistency":
            out.append(stream_consistency(probes, usage_tolerance))
    return out


def in_profile_order(spec: AuditSpec, verdicts: Sequence[RuleVerdict]) -> list[RuleVerdict]:
    order: dict[str, int] = {rule: i for i, rule in enumerate(spec.rules)}
    return sorted(verdicts, key=lambda v: order.get(v.rule, len(order)))
