"""The one core of ``harness compare``: two run folders → a typed :class:`CompareReport`.

Every kind with a comparison (its record's ``compare``, harness/kinds/record.py) that
both runs hold is checked for comparability, then compared: each kind's comparison
returns its section of the report; nothing here names a kind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.compare.load import load_pair
from harness.compare.model import COMPARED, CompareReport, ManifestDiff
from harness.errors import UsageError
from harness.manifest.diff import diff_settings
from harness.paired.comparable import Comparability
from harness.paired.side import CompareSettings, RunData
from harness.paired.stats import MIN_EFFECT_PCT
from harness.provenance import Provenance


@dataclass(frozen=True)
class CompareConfig:
    run_a: Path
    run_b: Path
    seed: int = 0
    min_effect_pct: float = MIN_EFFECT_PCT  # differences below this % of A are within noise

    @property
    def settings(self) -> CompareSettings:
        return CompareSettings(seed=self.seed, min_effect_pct=self.min_effect_pct)


def check(a: RunData, b: RunData) -> Comparability:
    """Everything that differs between A and B, and the report kinds to compare."""
    out = Comparability()
    if a.profile != b.profile:
        out.differences.append(f"profile: A {a.profile!r}, B {b.profile!r}")
    for kind in COMPARED:
        assert kind.compare is not None
        sa, sb = a.sides.get(kind.name), b.sides.get(kind.name)
        if sa is not None and sb is not None:
            out.kinds.append(kind.name)
            diffs, notes = kind.compare.differences(sa, sb)
            out.differences += diffs
            out.notes += notes
        elif sa is not None or sb is not None:
            out.notes.append(f"{kind.name}: only in {'A' if sa else 'B'}, not compared")
        for side, s in (("A", sa), ("B", sb)):
            if s is not None and not s.report.complete:
                out.notes.append(
                    f"{kind.name}: {side}'s report is partial (the run was interrupted)"
                )
    return out


def manifest_diff(a: RunData, b: RunData) -> ManifestDiff:
    """The two runs' configurations and every setting that changed from A to B."""
    ma, mb = a.manifest, b.manifest
    changes = diff_settings(ma.settings, mb.settings) if ma is not None and mb is not None else []
    return ManifestDiff(
        config_a=ma.config_id if ma else None,
        config_b=mb.config_id if mb else None,
        changes=changes,
    )


def compare_runs(cfg: CompareConfig, provenance: Provenance | None = None) -> CompareReport:
    """Load, refuse what is not comparable (UsageError, exit 2), then compare every shared kind."""
    a, b = load_pair(cfg.run_a, cfg.run_b)
    verdict = check(a, b)
    if not verdict.ok:
        raise UsageError(
            verdict.reason(k.name for k in COMPARED),
            hint="compare two runs of the same profile and settings",
        )
    report = CompareReport(
        run_a=str(cfg.run_a),
        run_b=str(cfg.run_b),
        profile=a.profile or "",
        seed=cfg.seed,
        min_effect_pct=cfg.min_effect_pct,
        manifest=manifest_diff(a, b),
        notes=list(verdict.notes),
        provenance=provenance or Provenance(profile=a.profile or ""),
    )
    for kind in COMPARED:
        assert kind.compare is not None
        if kind.name in verdict.kinds:
            sa, sb = a.sides[kind.name], b.sides[kind.name]
            report.sections[kind.name] = kind.compare.compare(sa, sb, cfg.settings)
    return report
