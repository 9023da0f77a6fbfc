"""The gate's rules for ``package.json``: a failed package rule blocks, a warning is a risk."""

from __future__ import annotations

from harness.image.report import PackageReport
from harness.risk import FlagKind, RiskFlag
from harness.verdict import Judgement, Reason, risk


def package_rules(rep: PackageReport) -> Judgement:
    reasons: list[Reason] = []
    flags: list[RiskFlag] = []
    for rule in rep.rules:
        text = f"package rule {rule.rule}: {rule.detail}"
        if rule.status == "fail":
            reasons.append(Reason(source="package", text=text, blocking=True))
        elif rule.status == "warn":
            flags.append(risk(FlagKind.PACKAGE_WARNING, "package", text))
    if not rep.passed and not reasons:
        reasons.append(
            Reason(
                source="package", text="package.json says the image failed its rules", blocking=True
            )
        )
    return reasons, flags
