"""The ``quality`` kind: the quality gates through lm-eval, as the grader scores them
(``quality.json`` + per-sample records)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.kinds.record import GateInputs, KindCompare, KindConsole, MeasurementKind
from harness.profiles import Profile
from harness.quality import compare as quality_compare
from harness.quality import compare_views as quality_compare_views
from harness.quality import views as quality_views
from harness.quality.compare import QualitySection
from harness.quality.config import QualityConfig, QualityOverrides, from_profile
from harness.quality.gate_rules import correctness_outcomes, quality_metrics, quality_rules
from harness.quality.report import QualityReport
from harness.quality.samples import read_samples
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.quality.hooks import QualityHooks


def rules(report: QualityReport, inputs: GateInputs) -> Judgement:
    """The benchmarks against their thresholds; under a throughput profile also its
    correctness gate's readings over these benchmarks (the throughput report says when
    they zero its score)."""
    spec = inputs.profile.quality
    reasons, flags = quality_rules(report, [b.name for b in spec.benchmarks] if spec else None)
    reasons += correctness_outcomes(inputs.profile.throughput, quality_metrics(report))
    return reasons, flags


def required(profile: Profile, image: bool) -> bool:
    return profile.quality is not None


def samples_beside(folder: Path, report: QualityReport) -> dict[str, list[dict[str, Any]]]:
    """Each benchmark's per-sample records, by benchmark name (absent files are skipped)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for bench in report.benchmarks:
        path = folder / (bench.samples_file or f"samples_{bench.name}.jsonl")
        if path.is_file():
            out[bench.name] = read_samples(path)
    return out


# The core, its hooks, the console, the preflight (its benchmarks, their data and punkt_tab,
# so ``gate --url`` stops before its latency run) and the summary by reference, imported
# when first used (harness/kinds/lazy.py).
KIND: MeasurementKind[QualityConfig, QualityOverrides, QualityReport, QualityHooks] = (
    MeasurementKind(
        name="quality",
        command=("quality",),
        report=QualityReport,
        overrides=QualityOverrides,
        from_profile=from_profile,
        run="harness.quality.core:run",
        exit_code="harness.quality.core:exit_code",
        silent_hooks="harness.quality.hooks:NO_HOOKS",
        required=required,
        rules=rules,
        gate_step="server",
        preflight="harness.quality.preflight:preflight",
        console=KindConsole(
            hooks="harness.quality.console:console_hooks",
            render="harness.quality.console:render_in",
        ),
        compare=KindCompare(
            section=QualitySection,
            load_extra=samples_beside,
            differences=quality_compare.differences,
            compare=quality_compare.section,
            views=quality_compare_views.blocks,
            legacy=quality_compare.legacy,
        ),
        views=quality_views.sections,
        summary="harness.quality.summary:SUMMARY",
    )
)
