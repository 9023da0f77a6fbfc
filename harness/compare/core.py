"""The one core of ``harness compare``: two run folders → a typed :class:`CompareReport`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.compare.comparable import check
from harness.compare.latency import compare_latency
from harness.compare.load import load_run
from harness.compare.model import CompareReport
from harness.compare.quality import compare_quality
from harness.compare.stats import MIN_EFFECT_PCT
from harness.compare.throughput import compare_throughput
from harness.compare.vlm import compare_vlm
from harness.errors import UsageError
from harness.runs import Provenance


@dataclass(frozen=True)
class CompareConfig:
    run_a: Path
    run_b: Path
    seed: int = 0
    min_effect_pct: float = MIN_EFFECT_PCT  # differences below this % of A are within noise


def compare_runs(cfg: CompareConfig, provenance: Provenance | None = None) -> CompareReport:
    """Load, refuse what is not comparable (UsageError, exit 2), then compare every shared kind."""
    a, b = load_run(cfg.run_a), load_run(cfg.run_b)
    verdict = check(a, b)
    if not verdict.ok:
        raise UsageError(verdict.reason(), hint="compare two runs of the same profile and settings")
    report = CompareReport(
        run_a=str(cfg.run_a),
        run_b=str(cfg.run_b),
        profile=a.profile or "",
        seed=cfg.seed,
        min_effect_pct=cfg.min_effect_pct,
        notes=list(verdict.notes),
        provenance=provenance or Provenance(profile=a.profile or ""),
    )
    if a.latency is not None and b.latency is not None:
        report.latency, report.latency_scores = compare_latency(
            a.latency,
            b.latency,
            repeats_a=a.repeats,
            repeats_b=b.repeats,
            min_effect_pct=cfg.min_effect_pct,
            seed=cfg.seed,
        )
    if a.quality is not None and b.quality is not None:
        report.quality = compare_quality(a.quality, b.quality, a.samples, b.samples)
    if a.throughput is not None and b.throughput is not None:
        report.throughput, report.throughput_score = compare_throughput(
            a.throughput, b.throughput, min_effect_pct=cfg.min_effect_pct, seed=cfg.seed
        )
    if a.vlm is not None and b.vlm is not None:
        report.vlm = compare_vlm(
            a.vlm_samples, b.vlm_samples, min_effect_pct=cfg.min_effect_pct, seed=cfg.seed
        )
    return report
