"""The ``audit`` kind: the contest's rules, one verdict each with its evidence (``audit.json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.audit import views as audit_views
from harness.audit.config import AuditConfig, AuditOverrides, from_profile
from harness.audit.gate_rules import audit_rules
from harness.audit.report import AuditReport
from harness.kinds.record import GateInputs, KindConsole, MeasurementKind
from harness.profiles import Profile
from harness.verdict import Judgement

if TYPE_CHECKING:
    from harness.audit.hooks import AuditHooks


def rules(report: AuditReport, inputs: GateInputs) -> Judgement:
    return audit_rules(report, inputs.profile.readiness.timeout_s)


def required(profile: Profile, image: bool) -> bool:
    """Where the contest has rules to audit, on the workload they copy (its latency buckets
    or its throughput sweep: harness/audit/workload.py)."""
    return bool(profile.audit.rules) and getattr(profile, profile.audit.workload) is not None


# The core, its hooks and the console by reference, imported when first used
# (harness/kinds/lazy.py).
KIND: MeasurementKind[AuditConfig, AuditOverrides, AuditReport, AuditHooks] = MeasurementKind(
    name="audit",
    command=("audit",),
    report=AuditReport,
    overrides=AuditOverrides,
    from_profile=from_profile,
    run="harness.audit.core:run",
    exit_code="harness.audit.core:exit_code",
    silent_hooks="harness.audit.hooks:NO_HOOKS",
    required=required,
    rules=rules,
    gate_step="server",
    judges_rules=True,
    console=KindConsole(
        hooks="harness.audit.console:ConsoleHooks",
        render="harness.audit.console:render_report",
    ),
    views=audit_views.page,
)
