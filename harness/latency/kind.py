"""The ``latency`` kind: the grader's buckets, speedup and score (``latency.json``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
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
from harness.latency import compare as latency_compare
from harness.latency import compare_views as latency_compare_views
from harness.latency import views as latency_views
from harness.latency.compare import LatencySection
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.gate_rules import latency_rules
from harness.latency.repeats import RepeatsReport
from harness.latency.report import LatencyReport
from harness.profiles import Profile
from harness.verdict import Judgement
from harness.view.summary import KindSummary

if TYPE_CHECKING:
    from harness.latency.hooks import LatencyHooks


# The core, its hooks and the console are imported when called (harness/kinds/record.py).
def run(cfg: LatencyConfig, env: RunEnv[LatencyHooks]) -> LatencyReport:
    from harness.latency.core import measure_latency

    return asyncio.run(
        measure_latency(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )


def exit_code(report: LatencyReport) -> int:
    from harness.latency.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> LatencyHooks:
    from harness.latency.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> LatencyHooks:
    from harness.latency.console import ConsoleHooks

    return ConsoleHooks(console)


def render(console: Console, report: LatencyReport, folder: str) -> None:
    from harness.latency.console import render_report

    render_report(console, report, folder)


def rules(report: LatencyReport, inputs: GateInputs) -> Judgement:
    return latency_rules(report, inputs.profile.latency, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    return profile.latency is not None


def repeats_beside(folder: Path, report: LatencyReport) -> RepeatsReport | None:
    """``latency_repeats.json`` (``--repeats``): the between-run spread compare uses."""
    return RepeatsReport.load(folder) if (folder / RepeatsReport.FILENAME).is_file() else None


def summary() -> KindSummary[LatencyReport, Any]:
    """Its ledger fields, cells, summary lines and gate.json figures (latency/summary.py)."""
    from harness.latency.summary import SUMMARY

    return SUMMARY


KIND: MeasurementKind[LatencyConfig, LatencyOverrides, LatencyReport, LatencyHooks] = (
    MeasurementKind(
        name="latency",
        command=("latency",),
        report=LatencyReport,
        overrides=LatencyOverrides,
        from_profile=from_profile,
        run=run,
        exit_code=exit_code,
        silent_hooks=silent_hooks,
        required=required,
        rules=rules,
        gate_step="server",
        score=KindScore("mean speedup", lambda r: r.score),
        console=KindConsole(hooks=console_hooks, render=render),
        compare=KindCompare(
            section=LatencySection,
            load_extra=repeats_beside,
            differences=latency_compare.differences,
            compare=latency_compare.section,
            views=latency_compare_views.blocks,
            legacy=latency_compare.legacy,
        ),
        views=latency_views.sections,
        summary=summary,
    )
)
