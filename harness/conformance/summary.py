"""Check's summary facet (harness/view/summary.py): how many checks ran and failed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from harness.conformance.report import CheckReport, Result
from harness.view.summary import KindSummary


class CheckLedger(BaseModel):
    """Check's keys of a ledger line."""

    model_config = ConfigDict(extra="ignore")

    checks_total: int | None = None
    checks_failed: int | None = None


def ledger_fields(check: CheckReport) -> CheckLedger:
    failed = sum(c.result is Result.FAIL for c in check.checks)
    return CheckLedger(checks_total=len(check.checks), checks_failed=failed)


def facts(part: CheckLedger) -> list[tuple[str, str]]:
    if part.checks_total is None:
        return []
    return [("checks failed", f"{part.checks_failed}/{part.checks_total}")]


def gate_cells(part: CheckLedger) -> list[str]:
    """``checks 20/20``: the checks that passed, of those run."""
    if part.checks_total is None:
        return []
    return [f"checks {part.checks_total - (part.checks_failed or 0)}/{part.checks_total}"]


SUMMARY: KindSummary[CheckReport, CheckLedger] = KindSummary(
    part=CheckLedger, of=ledger_fields, facts=facts, ledger_row=False, gate_cells=gate_cells
)
