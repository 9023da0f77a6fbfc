"""What a gate rule returns: :class:`Reason` lines and risk flags, and the verdict they decide.

Each measurement kind's rules (``harness/<kind>/gate_rules.py``) turn its report
into reasons (blocking or not) and :class:`~harness.risk.RiskFlag` records;
``harness.gate.rules.judge`` combines them: any blocking reason → FAIL; else any
missing, skipped or partial required report → INCOMPLETE; else PASS.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from harness.risk import FlagKind, RiskFlag


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCOMPLETE = "INCOMPLETE"


class Reason(BaseModel):
    """One line of the verdict. ``blocking`` reasons decide it; the rest explain it."""

    source: str  # the kind whose report it reads (check, latency, ...), or gate
    text: str
    blocking: bool = False
    incomplete: bool = False  # a required measurement is missing, skipped or partial


# One kind's rules over its report: the verdict's lines and the risk flags.
Judgement = tuple[list[Reason], list[RiskFlag]]


def risk(kind: FlagKind, source: str, text: str) -> RiskFlag:
    return RiskFlag(kind=kind, text=text, source=source)


def readiness_flag(source: str, readiness_s: float | None, limit_s: float) -> list[RiskFlag]:
    """A server slower to get ready than the grader waits (the profile's readiness limit)."""
    if readiness_s is None or readiness_s <= limit_s:
        return []
    text = f"readiness took {readiness_s:.0f} s, over the grader's {limit_s:.0f} s"
    return [risk(FlagKind.SLOW_READINESS, source, text)]


def partial(source: str, filename: str, *, why: str = "interrupted") -> Reason:
    """The reason every kind gives when its report is partial."""
    return Reason(source=source, text=f"{filename} is partial ({why})", incomplete=True)
