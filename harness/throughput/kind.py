"""The ``throughput`` kind: the concurrency sweep and its weighted score (``throughput.json``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.console import Console

from harness.compare.comparable import throughput_differences
from harness.compare.model import CompareReport
from harness.compare.side import CompareSettings, Side
from harness.compare.throughput import compare_throughput
from harness.kinds.record import (
    GateInputs,
    KindCompare,
    KindConsole,
    KindScore,
    MeasurementKind,
    RunEnv,
)
from harness.profiles import Profile
from harness.quality.gate_rules import quality_metrics
from harness.quality.report import QualityReport
from harness.throughput import views as throughput_views
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.correctness import evaluate, gated_score
from harness.throughput.gate_rules import throughput_rules
from harness.throughput.report import ThroughputReport
from harness.verdict import Judgement
from harness.view.summary import KindSummary

if TYPE_CHECKING:
    from harness.throughput.core import ThroughputHooks


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
    from harness.throughput.core import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> ThroughputHooks:
    from harness.throughput.render import ConsoleHooks

    return ConsoleHooks(console)


def render(console: Console, report: ThroughputReport, folder: str) -> None:
    from harness.throughput.render import render_report

    render_report(console, report, folder)


def rules(report: ThroughputReport, inputs: GateInputs) -> Judgement:
    return throughput_rules(report)


def graded_score(report: ThroughputReport, inputs: GateInputs) -> float | None:
    """The grader's final score: the measured one, or 0 when a score-zeroing reading of the
    correctness gate fails on the folder's quality report (harness/throughput/correctness.py)."""
    spec, quality = inputs.profile.throughput, inputs.get(QualityReport)
    if spec is None or quality is None or not spec.correctness_rules:
        return report.score
    return gated_score(report.score, evaluate(spec.correctness_rules, quality_metrics(quality)))


def required(profile: Profile, image: bool) -> bool:
    return profile.throughput is not None


def differences(
    a: Side[ThroughputReport], b: Side[ThroughputReport]
) -> tuple[list[str], list[str]]:
    return throughput_differences(a.report, b.report), []


def compare(
    a: Side[ThroughputReport], b: Side[ThroughputReport], s: CompareSettings, out: CompareReport
) -> None:
    out.throughput, out.throughput_score = compare_throughput(
        a.report, b.report, min_effect_pct=s.min_effect_pct, seed=s.seed
    )


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
        compare=KindCompare(load_extra=None, differences=differences, compare=compare),
        views=throughput_views.sections,
        summary=summary,
    )
)
