"""The typed record of one comparison; ``CompareReport`` is what ``--json`` prints.

A comparison holds one section per measurement kind both runs hold (``sections``, by
kind name, in the registry's order): each kind's comparison (``harness/<pkg>/compare.py``,
bound in its record's ``compare``) returns it; its type is the record's
``compare.section``. Every difference is B − A: for latency a positive difference means
B is slower, for scores and throughput a positive difference means B is higher.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, Field, SerializeAsAny, field_validator

from harness.manifest.model import Change
from harness.paired.model import CompareSection
from harness.paired.stats import MIN_EFFECT_PCT
from harness.registry import KINDS
from harness.report_base import Migration, Report

# the kinds compare reads: those whose record has a comparison, in the registry's order
COMPARED = tuple(k for k in KINDS if k.compare is not None)
S = TypeVar("S", bound=CompareSection)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 only adds: a throughput level's noise band (0, unknown) and a verdict word
    (filled in by that kind's section, below)."""
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 only adds the manifests' ids and diff (unknown in an older file)."""
    return data


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4 holds one section per kind: each kind's record takes its keys out of the
    top of an older file (its ``compare.legacy``) and makes its section of them."""
    sections: dict[str, Any] = {}
    for kind in COMPARED:
        assert kind.compare is not None
        section = kind.compare.legacy(data) if kind.compare.legacy else None
        if section is not None:
            sections[kind.name] = section
    return {**data, "sections": sections}


class ManifestDiff(BaseModel):
    """What ran in A and in B (their manifest.json, docs/manifest.md) and what changed."""

    config_a: str | None = None  # config_id; None: no manifest.json in that run
    config_b: str | None = None
    changes: list[Change] = Field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.config_a is not None and self.config_a == self.config_b


class CompareReport(Report):
    """The result of ``harness compare A B`` (also saved as ``compare.json`` with ``--save``)."""

    # 2: the verdict "inconclusive"; LevelDiff.noise / noise_source (docs/compare.md)
    # 3: ``manifest``, the servers' configurations and what changed (docs/manifest.md)
    # 4: ``sections``, one per kind, instead of per-kind keys at the top
    SCHEMA_VERSION: ClassVar[int] = 4
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}
    FILENAME: ClassVar[str] = "compare.json"

    kind: str = "compare"
    run_a: str
    run_b: str
    profile: str
    seed: int = 0
    min_effect_pct: float = MIN_EFFECT_PCT
    manifest: ManifestDiff | None = None  # None: written before schema 3
    # by kind name, in the registry's order: each kind's section (its record's compare.section)
    sections: dict[str, SerializeAsAny[CompareSection]] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)

    @field_validator("sections", mode="before")
    @classmethod
    def _typed(cls, raw: Any) -> Any:
        """Each section read as its kind's type; a kind compare does not know is refused."""
        if not isinstance(raw, dict):
            return raw
        types = {k.name: k.compare.section for k in COMPARED if k.compare is not None}
        unknown = sorted(set(raw) - set(types))
        if unknown:
            raise ValueError(
                f"sections of kinds compare does not read: {unknown} (it reads {', '.join(types)})"
            )
        return {
            name: value if isinstance(value, CompareSection) else types[name].model_validate(value)
            for name, value in raw.items()
        }

    def section(self, of: type[S]) -> S | None:
        """The section of type ``of`` (e.g. ``LatencySection``); None when not compared."""
        for value in self.sections.values():
            if isinstance(value, of):
                return value
        return None
