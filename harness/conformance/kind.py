"""The ``check`` kind: API conformance of every endpoint the profile names (``check.json``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from rich.console import Console

from harness.conformance import views as conformance_views
from harness.conformance.config import CheckOverrides, CheckPlan, from_profile
from harness.conformance.gate_rules import check_rules
from harness.conformance.report import CheckReport
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.verdict import Judgement
from harness.view.summary import KindSummary

if TYPE_CHECKING:
    from harness.conformance.hooks import CheckHooks


# The core, its hooks and the console are imported when called (harness/kinds/record.py).
def run(plan: CheckPlan, env: RunEnv[CheckHooks]) -> CheckReport:
    from harness.conformance.core import measure_check

    return asyncio.run(
        measure_check(
            plan.cfg, plan.planned, provenance=env.provenance, folder=env.folder, hooks=env.hooks
        )
    )


def exit_code(report: CheckReport) -> int:
    from harness.conformance.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> CheckHooks:
    from harness.conformance.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> CheckHooks:
    from harness.conformance.console import ConsoleHooks

    return ConsoleHooks(console, profile)


def render(console: Console, report: CheckReport, folder: str) -> None:
    from harness.conformance.console import render_report

    render_report(console, report, folder)


def rules(report: CheckReport, inputs: GateInputs) -> Judgement:
    return check_rules(report, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is None  # the AICAS benchmark runs in-process: no server to check


def summary() -> KindSummary[CheckReport, Any]:
    """Its ledger fields, cells, summary lines and gate.json figures (conformance/summary.py)."""
    from harness.conformance.summary import SUMMARY

    return SUMMARY


KIND: MeasurementKind[CheckPlan, CheckOverrides, CheckReport, CheckHooks] = MeasurementKind(
    name="check",
    command=("check",),
    report=CheckReport,
    overrides=CheckOverrides,
    from_profile=from_profile,
    run=run,
    exit_code=exit_code,
    silent_hooks=silent_hooks,
    required=required,
    rules=rules,
    gate_step="server",
    prerequisite=True,
    console=KindConsole(hooks=console_hooks, render=render),
    views=conformance_views.sections,
    summary=summary,
)
