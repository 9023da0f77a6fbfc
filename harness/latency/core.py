"""The latency core: one typed config in, one :class:`LatencyReport` out.

``measure_latency`` owns the whole procedure: load the tokenizer, wait for the
server like the grader does, run the buckets, attach the client's timing
calibration, and save ``latency.json``. On Ctrl-C (KeyboardInterrupt, or the
CancelledError ``asyncio.run`` turns it into) or an error mid-run, whatever was
measured is saved as a partial report before the exception goes on. It can be
called several times in one process (``compare``'s repeats): it keeps no state
between calls. Console output goes through :class:`LatencyHooks`; the CLI, the
gate and the demo pass their own, tests pass none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from harness.attribution import cache_flags, metrics_enabled, section_for
from harness.client.fingerprint import engine_record, not_taken, take_fingerprint
from harness.client.metrics import MetricsRecorder
from harness.client.readiness import wait_ready
from harness.client.urllib_client import GraderPoll
from harness.errors import EXIT_OK, EXIT_TARGET
from harness.kinds.record import RunEnv
from harness.latency.analysis import build_report, selftest_flags
from harness.latency.config import LatencyConfig
from harness.latency.hooks import NO_HOOKS, LatencyHooks
from harness.latency.network_probe import NetworkProber
from harness.latency.repeats import REPEAT_DIR, RepeatsReport, pool_states, summarize_repeats
from harness.latency.repeats_resume import (
    RepeatsResume,
    kept_state,
    repeat_record,
    resumed_config,
)
from harness.latency.report import Calibration, LatencyReport
from harness.latency.resume import record_in, resume_from
from harness.latency.runner import run_latency, run_probes
from harness.latency.state import LatencyState
from harness.latency.usage_check import probe_enabled
from harness.manifest.record import adopt_manifest, record_manifest
from harness.prompts import repeat_seed
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.tokenizer import Tokenizer, load_tokenizer

# a repeat's own flags the pooled report carries, marked with the repeat
_PER_REPEAT = (FlagKind.STRICT_CACHED, FlagKind.SELF_TEST_ERROR, FlagKind.ESTIMATE)


async def measure_latency(
    cfg: LatencyConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: LatencyHooks = NO_HOOKS,
    tokenizer: Tokenizer | None = None,
    state: LatencyState | None = None,
    self_test: Callable[[], Calibration] | None = None,
) -> LatencyReport:
    """Run ``cfg`` end to end and save ``folder/latency.json`` (partial on interruption).

    The strict prompts derive from ``cfg.seed`` (drawn by ``from_profile`` unless given;
    recorded; docs/timing.md).
    ``state``, when given, is filled with the raw measurements (repeats pool them).
    ``self_test`` replaces the quick client self-check (a seam for tests; default: the real
    one against the simulator, when ``cfg.calibrate``).
    Raises UnreachableError when the server never gets ready (nothing is saved then:
    nothing was measured), and re-raises whatever stopped the run after saving."""
    hooks.seed(cfg)
    tok = tokenizer or load_tokenizer(cfg.tokenizer, server_url=cfg.url, model=cfg.model)
    state = state if state is not None else LatencyState()
    scraping = metrics_enabled(cfg.metrics, cfg.mode)
    recorder = MetricsRecorder(cfg.url, enabled=scraping)
    prober = NetworkProber(cfg.url, cfg.ready_path, enabled=cfg.rtt_probes)
    hooks.waiting(cfg.url + cfg.ready_path)
    ready = await wait_ready(
        cfg.url,
        cfg.ready_path,
        interval_s=cfg.ready_interval_s,
        timeout_s=cfg.ready_timeout_s,
        on_attempt=hooks.attempt,
        # official: only the grader's own /ping polls reach the server
        like_grader=GraderPoll(cfg.ready_path, cfg.ready_interval_s)
        if cfg.mode != "strict"
        else None,
        wait_for_start=cfg.wait_for_start,
    )
    state.readiness_s = ready.elapsed_s
    hooks.ready(ready)
    # Harness extras (requests the grader never sends) only outside pure official mode
    # (docs/attribution.md).
    provenance.server = (
        not_taken(cfg.engine)
        if cfg.mode == "official"
        else await take_fingerprint(cfg.url, engine=cfg.engine)
    )
    if cfg.mode != "official":  # official: after the timed requests, below (docs/manifest.md)
        await record_manifest(folder, cfg.url, taken="before")

    hint = (
        f"the run was given --seed {cfg.seed}, the prompts of an earlier run with that seed; "
        "leave --seed out for fresh prompts"
        if not cfg.seed_drawn
        else "a fresh seed was drawn: something else sends these prompts"
    )

    def finish(complete: bool) -> LatencyReport:
        report = build_report(cfg, state, provenance, complete=complete)
        report.attribution = section_for(
            recorder.pairs,
            recorder.notes,
            scraped=scraping,
            choice=cfg.metrics,
            engine=engine_record(provenance.server),
        )
        report.flags += cache_flags(report.attribution, ("strict",), source="latency", hint=hint)
        prober.attach(report, recorder.pairs)  # loopback or network (docs/timing.md, Network)
        return report

    try:
        hooks.measuring(True)
        try:
            model = await run_latency(
                cfg,
                tok,
                state,
                on_bucket=hooks.bucket,
                on_row=hooks.row,
                hook=prober.around(recorder.bucket_hook),
                on_look=hooks.look,
            )
        finally:
            hooks.measuring(False)
        if probe_enabled(cfg):
            # after every bucket and every /metrics scrape: outside all measured traffic
            await run_probes(cfg, tok, state, model)
    except BaseException:
        if state.rows:
            hooks.partial(finish(False).save(folder))
        raise
    report = finish(True)
    if cfg.mode == "official":
        await record_manifest(folder, cfg.url, taken="separate step")
    try:
        if self_test is None and cfg.calibrate:
            from harness.latency.selftest import quick_calibration

            self_test = quick_calibration
        if self_test is not None:
            # The self-test runs the simulator and its own event loop: off this loop's thread.
            report.calibration = await asyncio.to_thread(self_test)
            report.flags += selftest_flags(report)
    finally:
        report.save(folder)  # the buckets are all measured even if the self-check is not
    return report


async def measure_latency_repeats(
    cfg: LatencyConfig,
    repeats: int,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: LatencyHooks = NO_HOOKS,
    tokenizer: Tokenizer | None = None,
    resume: RepeatsResume | None = None,
) -> tuple[LatencyReport, RepeatsReport]:
    """The procedure ``repeats`` times into ``folder/repeat-i/``, one after the other, then
    the pooled ``latency.json`` and the between-run spread ``latency_repeats.json``
    (harness/latency/repeats.py, docs/compare.md).

    Each repetition draws its own strict prompts: repetition i's seed is
    ``repeat_seed(base, i)``, ``base`` being ``cfg.seed`` (given, or drawn by ``from_profile``;
    recorded), so ``--seed base`` replays the whole set and repetition i alone replays with
    its seed. ``resume`` (an interrupted run's folder, harness/latency/repeats_resume.py):
    its base seed, its repetitions measured to the end kept, the cut one finished."""
    if resume is not None:
        cfg = resumed_config(cfg, resume)
    base = cfg.seed
    tok = tokenizer or load_tokenizer(cfg.tokenizer, server_url=cfg.url, model=cfg.model)
    states: list[LatencyState] = []
    reports: list[LatencyReport] = []
    folders: list[str] = []
    seeds = [repeat_seed(base, i) for i in range(1, repeats + 1)]
    for i, seed in enumerate(seeds, start=1):
        hooks.repeat(i, repeats)
        sub = REPEAT_DIR.format(i=i)
        one = replace(cfg, seed=seed, repeat=repeat_record(i, repeats, base))
        prov = provenance.model_copy(deep=True)
        state = LatencyState()
        if resume is not None and i in resume.done:  # measured to its end: kept as it is
            state, record = kept_state(resume.done[i])
            hooks.resuming(record)
            reports.append(resume.done[i])
        else:
            if resume is not None and i in resume.cut:  # cut: finished as a single run is
                resumed = resume_from(one, resume.cut[i], folder / sub)
                one, state = resumed.cfg, resumed.state
                record_in(prov, resume.cut[i], resumed.record)
                hooks.resuming(resumed.record)
            reports.append(
                await measure_latency(
                    one, provenance=prov, folder=folder / sub, hooks=hooks, tokenizer=tok,
                    state=state,
                )
            )  # fmt: skip
        states.append(state)
        folders.append(sub)
    pooled = build_report(cfg, pool_states(states), provenance, complete=True, pooled=True)
    pooled.settings["repeats"] = repeats
    pooled.settings["repeat_seeds"] = seeds
    if resume is not None:  # kept from the interrupted run: their strict ITL samples are
        # not in their reports, so the pooled ITL is of the repetitions measured here
        pooled.settings["kept_repeats"] = sorted(resume.done)
    pooled.calibration = reports[-1].calibration if reports else None
    # what each repetition flagged from its own /metrics, self-test and --until-ci stops
    # (each repeat's buckets stop on their own: the pool is an estimate if one did), once each
    for i, rep in enumerate(reports, start=1):
        for flag in rep.flags:
            if flag.kind in _PER_REPEAT:
                pooled.flags.append(flag.model_copy(update={"text": f"repeat {i}: {flag.text}"}))
    if any(f.kind == FlagKind.ESTIMATE for f in pooled.flags):
        pooled.settings["official_procedure"] = False
    pooled.save(folder)
    if folders:
        adopt_manifest(folder, folders[-1])
    summary = summarize_repeats(reports, folders)
    summary.seed = base
    summary.seeds = seeds
    summary.provenance = pooled.provenance  # with what the pooled analysis learnt
    summary.save(folder)
    return pooled, summary


def exit_code(report: LatencyReport) -> int:
    """3 when a bucket had no successful request (the target failed), else 0."""
    if any(b.n_ok == 0 for b in report.buckets()):
        return EXIT_TARGET
    return EXIT_OK


def run(cfg: LatencyConfig, env: RunEnv[LatencyHooks]) -> LatencyReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return asyncio.run(
        measure_latency(cfg, provenance=env.provenance, folder=env.folder, hooks=env.hooks)
    )
