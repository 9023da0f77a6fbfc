"""The check core: a planned selection in, one :class:`CheckReport` out, saved.

``measure_check`` loads the tokenizers, runs the checks (``runner.run_checks``
waits for readiness and judges), and saves ``check.json``; on Ctrl-C the checks
judged so far are saved as a partial report before the exception goes on.
Console output goes through :class:`CheckHooks`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from harness.client.fingerprint import take_fingerprint
from harness.conformance.config import CheckPlan
from harness.conformance.context import CheckConfig
from harness.conformance.hooks import NO_HOOKS, CheckHooks
from harness.conformance.registry import PlannedCheck
from harness.conformance.report import Check, CheckReport
from harness.conformance.runner import run_checks
from harness.errors import EXIT_FAIL, EXIT_OK
from harness.kinds.record import RunEnv
from harness.manifest.record import record_manifest
from harness.provenance import Provenance
from harness.tokenizer import load_tokenizer


async def measure_check(
    cfg: CheckConfig,
    planned: Sequence[PlannedCheck],
    *,
    provenance: Provenance,
    folder: Path,
    hooks: CheckHooks = NO_HOOKS,
) -> CheckReport:
    """Run ``planned`` against ``cfg.url`` and save ``folder/check.json``."""
    tok = load_tokenizer(cfg.tokenizer)
    long_tok = load_tokenizer(cfg.long_tokenizer)
    hooks.starting(cfg, len(planned))
    done: list[Check] = []

    def seen(check: Check) -> None:
        done.append(check)
        hooks.result(check)

    try:
        report = await run_checks(
            cfg,
            list(planned),
            tok,
            long_tok,
            provenance=provenance,
            on_result=seen,
            on_attempt=hooks.attempt,
        )
    except (KeyboardInterrupt, asyncio.CancelledError):
        partial = CheckReport(url=cfg.url, complete=False, checks=done, provenance=provenance)
        hooks.partial(partial.save(folder))
        raise
    # after the checks (they waited for readiness): engine, version, models, max_model_len
    report.provenance.server = await take_fingerprint(cfg.url, engine=cfg.engine)
    await record_manifest(folder, cfg.url, taken="after")
    report.save(folder)
    return report


def exit_code(report: CheckReport) -> int:
    """1 when a required check failed, else 0."""
    return EXIT_OK if report.ok else EXIT_FAIL


def run(plan: CheckPlan, env: RunEnv[CheckHooks]) -> CheckReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return asyncio.run(
        measure_check(
            plan.cfg, plan.planned, provenance=env.provenance, folder=env.folder, hooks=env.hooks
        )
    )
