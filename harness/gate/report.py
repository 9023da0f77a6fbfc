"""``gate.json``: the verdict, its reasons, and the risk flags."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from harness.report_base import Migration, Report
from harness.risk import RiskFlag, migrate_flags
from harness.verdict import Reason, Verdict

__all__ = ["GateReport", "Reason", "Verdict"]


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2: flags are :class:`RiskFlag` records (schema 1: strings)."""
    data["flags"] = migrate_flags(data.get("flags", []), "gate")
    # hand-written schema-1 files sometimes held reasons as bare strings
    reasons = data.get("reasons", [])
    if isinstance(reasons, list):
        data["reasons"] = [
            {"source": "gate", "text": r} if isinstance(r, str) else r for r in reasons
        ]
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3: ``skipped``, the steps left out with ``--skip`` (none before)."""
    data.setdefault("skipped", [])
    return data


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4: ``image_id``, the image the verdict is about (none recorded before)."""
    data.setdefault("image_id", None)
    return data


def _v4_to_v5(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 5: ``grader_score``, the score the grader would give (before: not told apart
    from ``score``, the measured one)."""
    data.setdefault("grader_score", data.get("score"))
    return data


class GateReport(Report):
    FILENAME: ClassVar[str] = "gate.json"
    SCHEMA_VERSION: ClassVar[int] = 5
    MIGRATIONS: ClassVar[dict[int, Migration]] = {
        1: _v1_to_v2,
        2: _v2_to_v3,
        3: _v3_to_v4,
        4: _v4_to_v5,
    }

    kind: str = "gate"
    verdict: Verdict
    strict: bool = False
    reasons: list[Reason] = Field(default_factory=list)
    flags: list[RiskFlag] = Field(
        default_factory=list
    )  # risk flags (fail the gate only with --strict)
    score: float | None = None  # the competition's score as measured (mean speedup / tok/s)
    score_name: str = ""
    # what the grader would give: ``score``, or 0 when a gate that zeroes it fails (Paris)
    grader_score: float | None = None
    bucket_speedups: dict[str, float | None] = Field(default_factory=dict)
    quality: dict[str, float | None] = Field(default_factory=dict)
    reports: list[str] = Field(default_factory=list)  # which reports were read
    skipped: list[str] = Field(default_factory=list)  # steps left out (--skip): INCOMPLETE
    folder: str = ""
    # the image judged: gate --image's (from package.json), or gate --url … --image-id ID;
    # harness submit looks for it (docs/submit.md, "Submit what was gated")
    image_id: str | None = None

    @property
    def blocking(self) -> list[Reason]:
        return [r for r in self.reasons if r.blocking]
