"""The throughput core: one typed config in, one :class:`ThroughputReport` out.

``measure_throughput`` loads the tokenizer, waits for the server (strict mode, or
official with ``wait_ready``: the grader's sweep itself sends nothing but its POSTs,
so official mode by default only checks, without a request, that the port accepts
connections), runs the sweep, draws the chart and saves ``throughput.json``. If the sweep stops early
(Ctrl-C, an error), the report of what was measured is saved, marked
incomplete, before the exception goes on. Console output goes through
:class:`ThroughputHooks`.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from harness.attribution import cache_flags, metrics_enabled, section_for
from harness.client.fingerprint import engine_record
from harness.client.metrics import MetricsRecorder
from harness.client.readiness import listening, wait_ready
from harness.engines.registry import by_name
from harness.errors import EXIT_FAIL, EXIT_OK, EXIT_TARGET
from harness.kinds.record import RunEnv
from harness.manifest.record import record_manifest
from harness.provenance import Provenance
from harness.throughput.analysis import build_report, probe_enabled, unsettled_rows
from harness.throughput.chart import write_chart
from harness.throughput.config import ThroughputConfig
from harness.throughput.gate_rules import unmeasured_gate
from harness.throughput.hooks import NO_HOOKS, ThroughputHooks
from harness.throughput.report import ThroughputReport
from harness.throughput.runner import run_probe, run_sweep
from harness.throughput.state import ThroughputState
from harness.tokenizer import Tokenizer, load_tokenizer


async def measure_throughput(
    cfg: ThroughputConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: ThroughputHooks = NO_HOOKS,
    tokenizer: Tokenizer | None = None,
) -> ThroughputReport:
    """Run the sweep of ``cfg`` and save ``folder/throughput.json`` (partial on interruption).

    Every prompt and spot-check draw derives from ``cfg.seed`` (drawn by ``from_profile``
    unless given; recorded)."""
    tok = tokenizer or load_tokenizer(cfg.tokenizer)
    if cfg.waits_for_readiness:
        hooks.waiting(cfg.url + cfg.ready_path)
        ready = await wait_ready(
            cfg.url,
            cfg.ready_path,
            interval_s=cfg.ready_interval_s,
            timeout_s=cfg.ready_timeout_s,
            on_attempt=hooks.attempt,
            wait_for_start=cfg.wait_for_start,
        )
        hooks.ready(ready)
    else:
        if cfg.wait_for_start:
            hooks.waiting(cfg.url)
        listened = await listening(
            cfg.url,
            timeout_s=cfg.connect_timeout_s,
            # --wait-for-start: TCP connects only, the grader's sweep sends no readiness GET
            wait_s=cfg.ready_timeout_s if cfg.wait_for_start else 0.0,
            interval_s=cfg.ready_interval_s,
            on_attempt=hooks.attempt,
        )
        if cfg.wait_for_start:
            hooks.ready(listened)
    if cfg.mode == "strict":  # official: after the sweep, below (docs/manifest.md)
        await record_manifest(folder, cfg.url, taken="before")
    state = ThroughputState()
    scraping = metrics_enabled(cfg.metrics, cfg.mode)
    recorder = MetricsRecorder(cfg.url, enabled=scraping)
    started = time.perf_counter()

    def finish(complete: bool) -> ThroughputReport:
        report = build_report(
            cfg, state, provenance, complete=complete, wall_s=time.perf_counter() - started
        )
        report.score_gate = unmeasured_gate(cfg.spec, cfg.url, provenance.profile, str(folder))
        report.attribution = section_for(
            recorder.pairs,
            recorder.notes,
            scraped=scraping,
            choice=cfg.metrics,
            engine=by_name(cfg.engine) or engine_record(provenance.server),
        )
        if cfg.mode == "strict":  # official mode reuses its prompts at every level, by design
            report.flags += cache_flags(
                report.attribution,
                ("throughput",),
                source="throughput",
                hint="leave --seed out for fresh prompts"
                if not cfg.seed_drawn
                else "a fresh seed was drawn: something else sends these prompts",
            )
        return report

    try:
        hooks.measuring(True)
        try:
            await run_sweep(
                cfg,
                tok,
                state,
                on_start=hooks.level,
                on_done=hooks.done,
                on_edge=recorder.edge,
                on_row=hooks.graded,
            )
        finally:
            hooks.measuring(False)
        if probe_enabled(cfg) and unsettled_rows(cfg, state):
            await run_probe(cfg, tok, state)  # after the last level: outside the sweep
    except BaseException:
        hooks.partial(finish(False).save(folder))
        raise
    report = finish(True)
    if cfg.mode != "strict":
        await record_manifest(folder, cfg.url, taken="separate step")
    if cfg.chart:
        chart = write_chart(report, folder)
        report.chart = chart.name if chart else None
    report.save(folder)
    return report


def exit_code(report: ThroughputReport) -> int:
    """3 when a level had no successful request, 1 when the sweep's verdict is FAIL, else 0."""
    if any(lv.n_ok == 0 for lv in report.levels):
        return EXIT_TARGET
    if report.passed is False:
        return EXIT_FAIL
    return EXIT_OK


def run(cfg: ThroughputConfig, env: RunEnv[ThroughputHooks]) -> ThroughputReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return asyncio.run(
        measure_throughput(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )
