"""The ``throughput`` kind: the concurrency sweep and its weighted score (``throughput.json``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from harness.kinds.record import GateInputs, KindCompare, KindConsole, MeasurementKind
from harness.profiles import Profile
from harness.quality.correctness import CorrectnessVerdict, evaluate, gated_score
from harness.quality.gate_rules import quality_metrics
from harness.quality.report import QualityReport
from harness.throughput import compare as throughput_compare
from harness.throughput import compare_views as throughput_compare_views
from harness.throughput import views as throughput_views
from harness.throughput.compare import ThroughputSection
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.gate_rules import score_caveat, score_zeroed, throughput_rules
from harness.throughput.report import ThroughputReport
from harness.throughput.scoring import SCORE
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.throughput.hooks import ThroughputHooks


def _correctness(inputs: GateInputs) -> CorrectnessVerdict | None:
    """The profile's correctness gate over the folder's quality report (None: none there)."""
    spec, quality = inputs.profile.throughput, inputs.get(QualityReport)
    if spec is None or quality is None:
        return None
    return evaluate(spec.correctness_rules, quality_metrics(quality))


def _judged(inputs: GateInputs) -> bool:
    """The profile measures its correctness gate (quality is one of its steps)."""
    return inputs.profile.quality is not None


def rules(report: ThroughputReport, inputs: GateInputs) -> Judgement:
    """Its own rules; under a correctness gate that zeroes the score (Paris), the grader's
    score when the folder's quality report fails it, and no ✓ beside a score it zeroes or
    has not judged yet."""
    spec, quality = inputs.profile.throughput, inputs.get(QualityReport)
    correctness = _correctness(inputs)
    reasons, flags = throughput_rules(report, spec, correctness, judged=_judged(inputs))
    if quality is not None:
        reasons += score_zeroed(spec, quality_metrics(quality), report.score)
    return reasons, flags


def graded_score(report: ThroughputReport, inputs: GateInputs) -> float | None:
    """The grader's final score: the measured one, or 0 when a score-zeroing reading of the
    correctness gate fails on the folder's quality report (harness/quality/correctness.py)."""
    spec, quality = inputs.profile.throughput, inputs.get(QualityReport)
    if spec is None or quality is None or not spec.correctness_rules:
        return report.score
    return gated_score(report.score, evaluate(spec.correctness_rules, quality_metrics(quality)))


def caveat(report: ThroughputReport, inputs: GateInputs) -> str:
    """``scored 0 unless gsm8k passes`` while that gate is not measured (Paris: GSM8K
    skipped, not run, or without a figure)."""
    spec = inputs.profile.throughput
    return score_caveat(spec, _correctness(inputs), judged=_judged(inputs))


def required(profile: Profile, image: bool) -> bool:
    return profile.throughput is not None


# The core, its hooks, the console and the summary by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[ThroughputConfig, ThroughputOverrides, ThroughputReport, ThroughputHooks] = (
    MeasurementKind(
        name="throughput",
        command=("throughput",),
        report=ThroughputReport,
        overrides=ThroughputOverrides,
        from_profile=from_profile,
        run="harness.throughput.core:run",
        exit_code="harness.throughput.core:exit_code",
        silent_hooks="harness.throughput.hooks:NO_HOOKS",
        required=required,
        rules=rules,
        gate_step="server",
        score=replace(SCORE, graded=graded_score, caveat=caveat),
        console=KindConsole(
            hooks="harness.throughput.console:console_hooks",
            render="harness.throughput.console:render_report",
        ),
        compare=KindCompare(
            section=ThroughputSection,
            load_extra=None,
            differences=throughput_compare.differences,
            compare=throughput_compare.section,
            views=throughput_compare_views.blocks,
            legacy=throughput_compare.legacy,
        ),
        views=throughput_views.sections,
        summary="harness.throughput.summary:SUMMARY",
    )
)
