"""API conformance: the named checks ``harness check`` runs against a server (docs/check.md)."""

from harness.conformance.context import CheckConfig
from harness.conformance.model import Check, CheckReport, Evidence, Result
from harness.conformance.registry import PlannedCheck, required_names, select
from harness.conformance.runner import run_checks

__all__ = [
    "Check",
    "CheckConfig",
    "CheckReport",
    "Evidence",
    "PlannedCheck",
    "Result",
    "required_names",
    "run_checks",
    "select",
]
