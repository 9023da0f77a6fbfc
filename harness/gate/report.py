"""``gate.json``: the verdict, its reasons, and the risk flags."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from harness.registry import KINDS
from harness.report_base import Migration, Report
from harness.risk import RiskFlag, migrate_flags
from harness.verdict import Reason, Verdict

__all__ = ["GateReport", "Reason", "Verdict", "headline_figures"]


def headline_figures(reports: Mapping[str, Report]) -> dict[str, Any]:
    """Each kind's figures in ``gate.json`` (its summary facet's ``headline``: latency's
    bucket speedups, quality's benchmark scores), from the folder's reports by kind name;
    a kind without its report gives the same keys, empty."""
    out: dict[str, Any] = {}
    for kind in KINDS:
        facet = kind.summary_facet()
        if facet is not None and facet.headline is not None:
            report = reports.get(kind.name)
            out.update(facet.headline(report if isinstance(report, kind.report) else None))
    return out


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


def _v5_to_v6(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 6: ``not_run`` (steps an earlier step's stop left unmeasured, with why) and
    ``image`` (judged with the package rules); neither was recorded before."""
    data.setdefault("not_run", {})
    data.setdefault("image", False)
    return data


def _v6_to_v7(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 7: ``score_caveat``, what qualifies the score in the headline while it is not
    yet the grader's (not recorded before: the headline names none)."""
    data.setdefault("score_caveat", "")
    return data


class GateReport(Report):
    FILENAME: ClassVar[str] = "gate.json"
    SCHEMA_VERSION: ClassVar[int] = 7
    MIGRATIONS: ClassVar[dict[int, Migration]] = {
        1: _v1_to_v2,
        2: _v2_to_v3,
        3: _v3_to_v4,
        4: _v4_to_v5,
        5: _v5_to_v6,
        6: _v6_to_v7,
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
    # what qualifies the score in the headline while it is not yet the grader's
    # (``KindScore.caveat``): "short only" (a mean over fewer buckets), "scored 0 unless
    # gsm8k passes" (Paris, GSM8K not measured); "": it is the grader's
    score_caveat: str = ""
    # what the grader would give: ``score``, or 0 when a gate that zeroes it fails (Paris)
    grader_score: float | None = None
    # each kind's figures (``headline_figures``), flat keys of gate.json after grader_score
    figures: dict[str, Any] = Field(default_factory=lambda: headline_figures({}), exclude=True)
    reports: list[str] = Field(default_factory=list)  # which reports were read
    skipped: list[str] = Field(default_factory=list)  # steps left out (--skip): INCOMPLETE
    # steps not run because an earlier one stopped the gate (check failed, no server): why
    not_run: dict[str, str] = Field(default_factory=dict)
    image: bool = False  # judged with the package rules (gate --image): package.json required
    folder: str = ""
    # the image judged: gate --image's (from package.json), or gate --url … --image-id ID;
    # harness submit looks for it (docs/submit.md, "Submit what was gated")
    image_id: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _kind_figures(cls, data: Any) -> Any:
        """gate.json's flat keys that belong to the kinds' figures → ``figures``."""
        if not isinstance(data, dict):
            return data
        rest = dict(data)
        given = rest.pop("figures", None) or {}
        figures = headline_figures({})
        for key in figures:
            if key in rest:
                figures[key] = rest.pop(key)
            elif key in given:
                figures[key] = given[key]
        return {**rest, "figures": figures}

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        head = list(data)
        cut = head.index("grader_score") + 1 if "grader_score" in head else len(head)
        return {
            **{k: data[k] for k in head[:cut]},
            **self.figures,
            **{k: data[k] for k in head[cut:]},
        }

    @property
    def blocking(self) -> list[Reason]:
        return [r for r in self.reasons if r.blocking]
