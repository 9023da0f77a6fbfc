"""The gate's verdict over a folder's reports: every kind's rules, combined.

Each kind's rules (``harness/<pkg>/gate_rules.py``, bound in its record) read
its report and return :class:`~harness.verdict.Reason` lines (blocking or not)
and :class:`~harness.risk.RiskFlag` records. :func:`judge` combines them: any
blocking reason → FAIL; else any missing, skipped or partial required report →
INCOMPLETE; else PASS. ``strict`` turns every risk flag into a blocking reason.
Rules read flags by ``kind``, never by their text, and take every grader number
(readiness limit, runs, warm-ups, buckets) from the profile.
"""

from __future__ import annotations

from harness.kinds.record import GateInputs
from harness.profiles import Profile
from harness.registry import KINDS
from harness.risk import FlagKind, RiskFlag
from harness.verdict import Reason, Verdict

__all__ = ["GateInputs", "judge", "required_reports"]


def required_reports(profile: Profile, *, image: bool = False) -> list[str]:
    """The kinds whose report a verdict under ``profile`` needs (``image``: gate --image)."""
    return [k.name for k in KINDS if k.required(profile, image)]


def _absent(inputs: GateInputs) -> list[Reason]:
    """One line per required report not there: skipped on purpose, not run because an earlier
    step stopped the gate, or missing. (A file that is there but unreadable has its own line
    already, from the reader.)"""
    out: list[Reason] = []
    for name in inputs.required:
        if name in inputs.reports or name in inputs.unreadable:
            continue
        if name in inputs.skipped:
            text = f"{name} not measured: skipped with --skip {name}"
        elif name in inputs.not_run:
            text = f"{name} not measured: {inputs.not_run[name]}"
        else:
            text = f"{name}.json is missing: run harness {name} into this folder"
        out.append(Reason(source="gate", text=text, incomplete=True))
    return out


def judge(
    inputs: GateInputs, *, strict: bool = False
) -> tuple[Verdict, list[Reason], list[RiskFlag]]:
    reasons = _absent(inputs)
    flags: list[RiskFlag] = []
    for kind in KINDS:
        kind_reasons, kind_flags = kind.judge(inputs)
        reasons += kind_reasons
        flags += kind_flags
    # the same risk seen by two reports (slow readiness: check and latency) is one flag
    unique: dict[tuple[FlagKind, str], RiskFlag] = {}
    for flag in flags:
        unique.setdefault((flag.kind, flag.text), flag)
    flags = list(unique.values())
    if strict:
        reasons += [
            Reason(source="gate", text=f"--strict: {flag.text}", blocking=True) for flag in flags
        ]
    if any(r.blocking for r in reasons):
        verdict = Verdict.FAIL
    elif any(r.incomplete for r in reasons):
        verdict = Verdict.INCOMPLETE
    else:
        verdict = Verdict.PASS
    return verdict, reasons, flags
