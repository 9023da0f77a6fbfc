"""The ``audit`` kind: the contest's rules, one verdict each with its evidence (``audit.json``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.console import Console

from harness.audit import views as audit_views
from harness.audit.config import AuditConfig, AuditOverrides, from_profile
from harness.audit.gate_rules import audit_rules
from harness.audit.report import AuditReport
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind, RunEnv
from harness.profiles import Profile
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.audit.hooks import AuditHooks


# The core, its hooks and the console are imported when called (harness/kinds/record.py).
def run(cfg: AuditConfig, env: RunEnv[AuditHooks]) -> AuditReport:
    from harness.audit.core import measure_audit

    return asyncio.run(
        measure_audit(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )


def exit_code(report: AuditReport) -> int:
    from harness.audit.core import exit_code as core_exit_code

    return core_exit_code(report)


def silent_hooks() -> AuditHooks:
    from harness.audit.hooks import NO_HOOKS

    return NO_HOOKS


def console_hooks(console: Console, profile: str) -> AuditHooks:
    from harness.audit.console import ConsoleHooks

    return ConsoleHooks(console, profile)


def render(console: Console, report: AuditReport, folder: str) -> None:
    from harness.audit.console import render_report

    render_report(console, report, folder)


def rules(report: AuditReport, inputs: GateInputs) -> Judgement:
    return audit_rules(report, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    """Where the contest has rules to audit, on its latency route."""
    return bool(profile.audit.rules) and profile.latency is not None


KIND: MeasurementKind[AuditConfig, AuditOverrides, AuditReport, AuditHooks] = MeasurementKind(
    name="audit",
    command=("audit",),
    report=AuditReport,
    overrides=AuditOverrides,
    from_profile=from_profile,
    run=run,
    exit_code=exit_code,
    silent_hooks=silent_hooks,
    required=required,
    rules=rules,
    gate_step="server",
    judges_rules=True,
    console=KindConsole(hooks=console_hooks, render=render),
    views=audit_views.sections,
)
