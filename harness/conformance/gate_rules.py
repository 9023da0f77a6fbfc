"""The gate's rules for ``check.json``: a failed required check blocks; named risks are flagged."""

from __future__ import annotations

from harness.conformance.report import CheckReport, Result
from harness.risk import FlagKind, RiskFlag
from harness.verdict import Judgement, Reason, partial, readiness_flag, risk

# check names whose failure or warning is a named risk of the competition rules
RISKY_CHECKS: dict[str, tuple[FlagKind, str]] = {
    "thinking_off": (FlagKind.THINKING_LEAK, "thinking leaks into content with thinking OFF"),
    "thinking_default": (
        FlagKind.THINKING_DEFAULT,
        "the grader's MMLU-Pro (no thinking switch) would be answered thinking",
    ),
    "one_stack": (
        FlagKind.ENDPOINT_ROUTING,
        "different answers through different endpoints (routing by endpoint is forbidden)",
    ),
}


def check_rules(rep: CheckReport, ready_limit_s: float) -> Judgement:
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    for c in rep.checks:
        if c.required and c.result is Result.FAIL:
            reasons.append(
                Reason(source="check", text=f"check {c.name} failed: {c.reason}", blocking=True)
            )
        elif c.result in (Result.FAIL, Result.WARN):
            text = f"check {c.name} ({c.result.value}): {c.reason}"
            flags.append(risk(FlagKind.CHECK_NOT_PASSED, "check", text))
        risky = RISKY_CHECKS.get(c.name)
        # a check whose request failed found nothing about its property: no named risk
        # (harness/client/answered.py), only the check-not-passed flag above
        answered = c.details.get("answered", True)
        if risky is not None and answered and c.result in (Result.FAIL, Result.WARN):
            flags.append(risk(risky[0], "check", f"{risky[1]}: {c.reason}"))
    flags += readiness_flag("check", rep.readiness_s, ready_limit_s)
    if not rep.complete:
        reasons.append(partial("check", CheckReport.FILENAME))
    return reasons, flags
