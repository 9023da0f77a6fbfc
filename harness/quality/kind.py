"""The ``quality`` kind: the quality gates through lm-eval, as the grader scores them
(``quality.json`` + per-sample records)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from harness.kinds.record import (
    GateInputs,
    KindCompare,
    KindConsole,
    MeasurementKind,
    RunEnv,
)
from harness.profiles import Profile
from harness.quality import compare as quality_compare
from harness.quality import compare_views as quality_compare_views
from harness.quality import views as quality_views
from harness.quality.compare import QualitySection
from harness.quality.config import QualityConfig, QualityOverrides, from_profile
from harness.quality.gate_rules import correctness_outcomes, quality_metrics, quality_rules
from harness.quality.render import render_report
from harness.quality.report import QualityReport
from harness.quality.samples import read_samples
from harness.verdict import Judgement
from harness.view.summary import KindSummary

if TYPE_CHECKING:
    from harness.quality.hooks import QualityHooks


# The core, its hooks, the console and the preflight are imported when called
# (harness/kinds/record.py).
def run(cfg: QualityConfig, env: RunEnv[QualityHooks]) -> QualityReport:
    from harness.quality.core import measure_quality

    return measure_quality(cfg, provenance=env.provenance, hooks=env.hooks)


def exit_code(report: QualityReport) -> int:
    from harness.quality.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> QualityHooks:
    from harness.quality.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> QualityHooks:
    from harness.quality.console import ConsoleHooks

    return ConsoleHooks(console)


def check_first(cfg: QualityConfig) -> None:
    """What the quality step needs before anything is measured: its benchmarks, their data
    and punkt_tab (quality/preflight.py), so ``gate --url`` stops before its latency run."""
    from harness.quality.preflight import preflight

    preflight(cfg)


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


def render(console: Console, report: QualityReport, folder: str) -> None:
    render_report(console, report)
    console.print(f"run folder: {folder}")


def summary() -> KindSummary[QualityReport, Any]:
    """Its ledger fields, cells, summary lines and gate.json figures (quality/summary.py)."""
    from harness.quality.summary import SUMMARY

    return SUMMARY


KIND: MeasurementKind[QualityConfig, QualityOverrides, QualityReport, QualityHooks] = (
    MeasurementKind(
        name="quality",
        command=("quality",),
        report=QualityReport,
        overrides=QualityOverrides,
        from_profile=from_profile,
        run=run,
        exit_code=exit_code,
        silent_hooks=silent_hooks,
        required=required,
        rules=rules,
        gate_step="server",
        preflight=check_first,
        console=KindConsole(hooks=console_hooks, render=render),
        compare=KindCompare(
            section=QualitySection,
            load_extra=samples_beside,
            differences=quality_compare.differences,
            compare=quality_compare.section,
            views=quality_compare_views.blocks,
            legacy=quality_compare.legacy,
        ),
        views=quality_views.sections,
        summary=summary,
    )
)
