"""Every benchmark of a quality run in order, each as the grader asks it or, with
``--decide``, until its gate decision is settled; the report filled and saved as each ends."""

from __future__ import annotations

import time

from harness.data.hf_cache import DataRoute
from harness.provenance import with_facts
from harness.quality.config import QualityConfig
from harness.quality.decide import run_decided
from harness.quality.hooks import QualityHooks
from harness.quality.identity import ServerIdentity
from harness.quality.report import QualityReport
from harness.quality.resume import open_answers
from harness.quality.runner import new_transport, run_benchmark, task_manager_for


def run_benchmarks(
    cfg: QualityConfig,
    route: DataRoute,
    identity: ServerIdentity,
    report: QualityReport,
    hooks: QualityHooks,
) -> QualityReport:
    """Every benchmark in order; ``report`` is filled (and saved) as each one ends.

    The caller (the quality core) has checked the data, waited for the server and set
    lm-eval's offline environment: this is only the benchmarks. The answer cache reuses
    only answers ``identity`` gave (resume.py)."""
    report.server_fingerprint = identity.label()
    report.provenance = with_facts(report.provenance, tokenizer=cfg.profile.server.tokenizer)
    task_manager = task_manager_for(cfg, route, report)
    cache = open_answers(
        cfg.folder,
        cfg.url,
        identity,
        fresh=not cfg.resume,
        reuse_any=cfg.resume_answers,
        say=hooks.note,
    )
    started = time.perf_counter()
    try:
        for bench in cfg.benchmarks():
            transport = new_transport(cfg, bench, cache, hooks.progress(bench))
            if cfg.decide:
                result = run_decided(cfg, bench, task_manager, transport, hooks)
            else:
                result = run_benchmark(cfg, bench, task_manager, transport)
            report.benchmarks.append(result)
            report.wall_s = time.perf_counter() - started
            report.save(cfg.folder)
    finally:
        cache.close()
    report.passed = report.verdict()
    report.complete = all(b.error is None for b in report.benchmarks)
    report.wall_s = time.perf_counter() - started
    report.save(cfg.folder)
    return report
