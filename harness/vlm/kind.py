"""The ``vlm`` kind: the AICAS in-process benchmark (``vlm.json`` + ``result.json``).

Its core is harness/vlm/core.py (``measure_vlm``); the gate judges ``vlm.json``
but does not run it (the benchmark needs the participant's Python and a GPU).
"""

from __future__ import annotations

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
from harness.verdict import Judgement
from harness.view.summary import KindSummary
from harness.vlm import compare as vlm_compare
from harness.vlm import compare_views as vlm_compare_views
from harness.vlm import views as vlm_views
from harness.vlm.compare import VlmDiff
from harness.vlm.config import VlmOverrides, VlmRunConfig, from_profile
from harness.vlm.gate_rules import vlm_rules, vlm_score
from harness.vlm.report import VlmReport

if TYPE_CHECKING:
    from harness.vlm.hooks import VlmHooks


# The core, its hooks and the console are imported when called (harness/kinds/record.py).
def run(cfg: VlmRunConfig, env: RunEnv[VlmHooks]) -> VlmReport:
    from harness.vlm.core import measure_vlm

    return measure_vlm(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)


def exit_code(report: VlmReport) -> int:
    from harness.vlm.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> VlmHooks:
    from harness.vlm.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> VlmHooks:
    from harness.vlm.console import ConsoleHooks

    return ConsoleHooks(console)


def render(console: Console, report: VlmReport, folder: str) -> None:
    from harness.vlm.console import render_vlm

    render_vlm(console, report, folder)


def rules(report: VlmReport, inputs: GateInputs) -> Judgement:
    return vlm_rules(report)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is not None


def summary() -> KindSummary[VlmReport, Any]:
    """Its ledger fields, cells, summary lines and gate.json figures (vlm/summary.py)."""
    from harness.vlm.summary import SUMMARY

    return SUMMARY


KIND: MeasurementKind[VlmRunConfig, VlmOverrides, VlmReport, VlmHooks] = MeasurementKind(
    name="vlm",
    command=("vlm", "run"),
    report=VlmReport,
    overrides=VlmOverrides,
    from_profile=from_profile,
    run=run,
    exit_code=exit_code,
    silent_hooks=silent_hooks,
    required=required,
    rules=rules,
    score=KindScore("AICAS final score (official baselines)", vlm_score),
    console=KindConsole(hooks=console_hooks, render=render),
    compare=KindCompare(
        section=VlmDiff,
        load_extra=None,
        differences=vlm_compare.differences,
        compare=vlm_compare.section,
        views=vlm_compare_views.blocks,
        legacy=vlm_compare.legacy,
    ),
    views=vlm_views.sections,
    summary=summary,
)
