"""The ``check`` kind: API conformance of every endpoint the profile names (``check.json``)."""

from __future__ import annotations

import asyncio

from harness.conformance import views as conformance_views
from harness.conformance.core import NO_HOOKS, CheckHooks, exit_code, measure_check
from harness.conformance.gate_rules import check_rules
from harness.conformance.model import CheckReport
from harness.conformance.plan import CheckOverrides, CheckPlan, from_profile
from harness.conformance.render import ConsoleHooks, render_report
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.verdict import Judgement


def run(plan: CheckPlan, env: RunEnv[CheckHooks]) -> CheckReport:
    return asyncio.run(
        measure_check(
            plan.cfg, plan.planned, provenance=env.provenance, folder=env.folder, hooks=env.hooks
        )
    )


def rules(report: CheckReport, inputs: GateInputs) -> Judgement:
    return check_rules(report, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is None  # the AICAS benchmark runs in-process: no server to check


KIND: MeasurementKind[CheckPlan, CheckOverrides, CheckReport, CheckHooks] = MeasurementKind(
    name="check",
    command=("check",),
    report=CheckReport,
    overrides=CheckOverrides,
    from_profile=from_profile,
    run=run,
    exit_code=exit_code,
    no_hooks=NO_HOOKS,
    required=required,
    rules=rules,
    gate_step="server",
    prerequisite=True,
    console=KindConsole(hooks=ConsoleHooks, render=render_report),
    views=conformance_views.sections,
)
