"""The ``throughput`` kind: the concurrency sweep and its weighted score (``throughput.json``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.console import Console

from harness.kinds.record import (
    GateInputs,
    KindCompare,
    KindConsole,
    KindScore,
    MeasurementKind,
    RunEnv,
)
from harness.profiles import Profile
from harness.quality.correctness import evaluate, gated_score
from harness.quality.gate_rules import quality_metrics
from harness.quality.report import QualityReport
from harness.throughput import compare as throughput_compare
from harness.throughput import compare_views as throughput_compare_views
from harness.throughput import views as throughput_views
from harness.throughput.compare import ThroughputSection
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.gate_rules import score_zeroed, throughput_rules
from harness.throughput.report import ThroughputReport
from harness.verdict import Judgement
from harness.view.summary import KindSummary

if TYPE_CHECKING:
    from harness.throughput.hooks import ThroughputHooks


# The core, its hooks and the console are imported when called (harness/kinds/record.py).
def run(cfg: ThroughputConfig, env: RunEnv[ThroughputHooks]) -> ThroughputReport:
    from harness.throughput.core import measure_throughput

    return asyncio.run(
        measure_throughput(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )


def exit_code(report: ThroughputReport) -> int:
    from harness.throughput.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> ThroughputHooks:
    from harness.throughput.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> ThroughputHooks:
    from harness.throughput.console import ConsoleHooks

    return ConsoleHooks(console)


def render(console: Console, report: ThroughputReport, folder: str) -> None:
    from harness.throughput.console import render_report

    render_report(console, report, folder)


def rules(report: ThroughputReport, inputs: GateInputs) -> Judgement:
    """Its own rules; under a correctness gate that zeroes the score (Paris), the grader's
    score when the folder's quality report fails it."""
    reasons, flags = throughput_rules(report)
    quality = inputs.get(QualityReport)
    if quality is not None:
        reasons += score_zeroed(inputs.profile.throughput, quality_metrics(quality), report.score)
    return reasons, flags


def graded_score(report: ThroughputReport, inputs: GateInputs) -> float | None:
    """The grader's final score: the measured one, or 0 when a score-zeroing reading of the
    correctness gate fails on the folder's quality report (harness/quality/correctness.py)."""
    spec, quality = inputs.profile.throughput, inputs.get(QualityReport)
    if spec is None or quality is None or not spec.correctness_rules:
        return report.score
    return gated_score(report.score, evaluate(spec.correctness_rules, quality_metrics(quality)))


def required(profile: Profile, image: bool) -> bool:
    return profile.throughput is not None


def summary() -> KindSummary[ThroughputReport, Any]:
    """Its ledger fields, cells, summary lines and gate.json figures (throughput/summary.py)."""
    from harness.throughput.summary import SUMMARY

    return SUMMARY


KIND: MeasurementKind[ThroughputConfig, ThroughputOverrides, ThroughputReport, ThroughputHooks] = (
    MeasurementKind(
        name="throughput",
        command=("throughput",),
        report=ThroughputReport,
        overrides=ThroughputOverrides,
        from_profile=from_profile,
        run=run,
        exit_code=exit_code,
        silent_hooks=silent_hooks,
        required=required,
        rules=rules,
        gate_step="server",
        score=KindScore("weighted tok/s", lambda r: r.score, graded=graded_score),
        console=KindConsole(hooks=console_hooks, render=render),
        compare=KindCompare(
            section=ThroughputSection,
            load_extra=None,
            differences=throughput_compare.differences,
            compare=throughput_compare.section,
            views=throughput_compare_views.blocks,
            legacy=throughput_compare.legacy,
        ),
        views=throughput_views.sections,
        summary=summary,
    )
)
