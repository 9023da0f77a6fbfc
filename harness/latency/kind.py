"""The ``latency`` kind: the grader's buckets, speedup and score (``latency.json``)."""

from __future__ import annotations

from pathlib import Path

from harness.compare.comparable import latency_differences
from harness.compare.latency import compare_latency
from harness.compare.model import CompareReport
from harness.compare.side import CompareSettings, Side
from harness.kinds.record import (
    GateInputs,
    KindCompare,
    KindConsole,
    KindScore,
    MeasurementKind,
    async_core,
    console_only,
)
from harness.latency import views as latency_views
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.core import NO_HOOKS, LatencyHooks, exit_code, measure_latency
from harness.latency.gate_rules import latency_rules
from harness.latency.render import ConsoleHooks, render_report
from harness.latency.repeats import RepeatsReport
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.verdict import Judgement


def rules(report: LatencyReport, inputs: GateInputs) -> Judgement:
    return latency_rules(report, inputs.profile.latency, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    return profile.latency is not None


def repeats_beside(folder: Path, report: LatencyReport) -> RepeatsReport | None:
    """``latency_repeats.json`` (``--repeats``): the between-run spread compare uses."""
    return RepeatsReport.load(folder) if (folder / RepeatsReport.FILENAME).is_file() else None


def differences(a: Side[LatencyReport], b: Side[LatencyReport]) -> tuple[list[str], list[str]]:
    return latency_differences(a.report, b.report)


def compare(
    a: Side[LatencyReport], b: Side[LatencyReport], s: CompareSettings, out: CompareReport
) -> None:
    out.latency, out.latency_scores = compare_latency(
        a.report,
        b.report,
        repeats_a=a.extra,
        repeats_b=b.extra,
        min_effect_pct=s.min_effect_pct,
        seed=s.seed,
    )


KIND: MeasurementKind[LatencyConfig, LatencyOverrides, LatencyReport, LatencyHooks] = (
    MeasurementKind(
        name="latency",
        command=("latency",),
        report=LatencyReport,
        overrides=LatencyOverrides,
        from_profile=from_profile,
        run=async_core(measure_latency),
        exit_code=exit_code,
        no_hooks=NO_HOOKS,
        required=required,
        rules=rules,
        gate_step="server",
        score=KindScore("mean speedup", lambda r: r.score),
        console=KindConsole(hooks=console_only(ConsoleHooks), render=render_report),
        compare=KindCompare(load_extra=repeats_beside, differences=differences, compare=compare),
        views=latency_views.sections,
    )
)
