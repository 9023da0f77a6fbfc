"""Finishing an interrupted audit in its own folder (``harness audit --out DIR --resume``).

An audit saves every request it measured in a partial ``audit.json`` (``complete: false``)
after each round and each later phase, and on Ctrl-C or SIGTERM: an audit killed outright
(``kill -9``) loses one round at most. Resuming keeps them and sends only what is
left: each round's prompts not yet answered, the quality items and probes not yet asked,
the buckets' complete-output checks not yet made, with the interrupted run's seed (the same
controls and unique heads). A round's three prompts are interleaved with the others' and
each pair is compared on its own, so a kept request is as good as a new one.

The server's counters are left out of a resumed audit: the interrupted run read them
before and never after, and a delta spanning a restart (of the server or of the audit)
proves nothing (docs/audit.md, "Interrupted audits").
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from harness.audit.config import AuditConfig
from harness.audit.report import AuditReport
from harness.errors import UsageError
from harness.report_base import load_report
from harness.target import OUT

RESUME = "--resume"
COUNTERS_LEFT_OUT = (
    "left out: a resumed audit (a delta of the server's counters across an interruption "
    "proves nothing)"
)


def guard_folder(out: str | None, *, resume: bool) -> AuditReport | None:
    """The partial report ``--resume`` finishes (None without it); said before anything is
    measured (exit 2, one line)."""
    if not resume:
        return None
    if out is None:
        raise UsageError(
            f"{RESUME} needs {OUT} DIR, the interrupted audit's folder",
            hint="run the command the interrupted audit printed",
        )
    partial = load_report(Path(out), AuditReport)
    path = Path(out) / AuditReport.FILENAME
    if partial is None:
        raise UsageError(
            f"{path} does not exist: nothing to resume", hint=f"drop {RESUME} to audit afresh"
        )
    if partial.complete:
        raise UsageError(
            f"{path} is a complete audit: nothing to resume",
            hint=f"use another {OUT} to audit again",
        )
    return partial


def resumed(cfg: AuditConfig, partial: AuditReport) -> AuditConfig:
    """The config that finishes ``partial``: its seed (the same controls and heads)."""
    return replace(cfg, seed=partial.seed)
