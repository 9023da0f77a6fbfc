"""What ``compare`` holds of one run folder: each kind's report and what is read beside it.

Plain records (no file access): ``compare/load.py`` fills them through each
kind's record (harness/kinds/), the per-kind comparisons (``harness/<pkg>/compare.py``)
read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from harness.manifest.model import Manifest
from harness.paired.stats import MIN_EFFECT_PCT
from harness.report_base import Report

R = TypeVar("R", bound=Report)


@dataclass(frozen=True)
class Side(Generic[R]):
    """One kind's report of one run, and what its comparison reads beside it
    (latency: the repeats summary; quality: the per-sample records)."""

    report: R
    extra: Any = None


@dataclass(frozen=True)
class CompareSettings:
    seed: int = 0  # bootstrap seed
    min_effect_pct: float = MIN_EFFECT_PCT  # differences below this % of A are within noise


@dataclass
class RunData:
    """What one run folder holds for a comparison: ``sides`` by kind name; absent = not there."""

    folder: Path
    label: str = "A"  # A or B: which side of the comparison, for messages
    sides: dict[str, Side[Any]] = field(default_factory=dict)
    manifest: Manifest | None = None  # what ran (manifest.json); None when not recorded

    @classmethod
    def of(cls, folder: Path, *reports: Report, label: str = "A") -> RunData:
        """A run of the given reports (no extras): tests and callers holding reports."""
        return cls(folder=folder, label=label, sides={r.kind: Side(r) for r in reports})

    @property
    def profile(self) -> str | None:
        for side in self.sides.values():
            if side.report.provenance.profile:
                return side.report.provenance.profile
        return None
