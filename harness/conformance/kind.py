"""The ``check`` kind: API conformance of every endpoint the profile names (``check.json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.conformance import views as conformance_views
from harness.conformance.config import CheckOverrides, CheckPlan, from_profile
from harness.conformance.gate_rules import check_rules
from harness.conformance.report import CheckReport
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind
from harness.profiles import Profile
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.conformance.hooks import CheckHooks


def rules(report: CheckReport, inputs: GateInputs) -> Judgement:
    return check_rules(report, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    return profile.vlm is None  # the AICAS benchmark runs in-process: no server to check


# The core, its hooks, the console and the summary by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[CheckPlan, CheckOverrides, CheckReport, CheckHooks] = MeasurementKind(
    name="check",
    command=("check",),
    report=CheckReport,
    overrides=CheckOverrides,
    from_profile=from_profile,
    run="harness.conformance.core:run",
    exit_code="harness.conformance.core:exit_code",
    silent_hooks="harness.conformance.hooks:NO_HOOKS",
    required=required,
    rules=rules,
    gate_step="server",
    prerequisite=True,
    console=KindConsole(
        hooks="harness.conformance.console:ConsoleHooks",
        render="harness.conformance.console:render_report",
    ),
    views=conformance_views.sections,
    summary="harness.conformance.summary:SUMMARY",
)
