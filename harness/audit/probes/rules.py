"""The probe phase's rules as records (harness/audit/rule.py): ``one_stack`` (its second
set of probes when the first splits: harness/audit/probes/stack.py) and ``stream_consistency``
(whose streams get their own second look, harness/audit/probes/stream.py, sent by
harness/audit/probes/send.py)."""

from __future__ import annotations

from harness.audit.probes.stack import needs_confirmation, one_stack
from harness.audit.probes.stream import stream_consistency
from harness.audit.rule import AuditRule, Measured
from harness.audit_catalogue import ONE_STACK, STREAM_CONSISTENCY
from harness.rule_report import RuleVerdict


def _one_stack(m: Measured) -> RuleVerdict:
    return one_stack(m.probes, m.spec)


def _split_stacks(m: Measured) -> bool:
    return needs_confirmation(m.probes, m.spec)


def _stream_consistency(m: Measured) -> RuleVerdict:
    return stream_consistency(m.probes, m.usage_tolerance)


STACK = AuditRule(ONE_STACK, _one_stack, _split_stacks)
STREAMS = AuditRule(STREAM_CONSISTENCY, _stream_consistency)
