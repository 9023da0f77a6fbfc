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
from pathlib import Path

from harness.attribution import metrics_enabled, section_for
from harness.client.fingerprint import not_taken, take_fingerprint
from harness.client.metrics import MetricsRecorder
from harness.client.readiness import ReadyResult, wait_ready
from harness.client.urllib_client import GraderPoll
from harness.errors import EXIT_OK, EXIT_TARGET
from harness.latency.analysis import build_report
from harness.latency.config import LatencyConfig
from harness.latency.repeats import REPEAT_DIR, RepeatsReport, pool_states, summarize_repeats
from harness.latency.report import LatencyReport, RequestRow
from harness.latency.runner import run_latency
from harness.latency.sequential import Look
from harness.latency.state import LatencyState
from harness.latency.until_ci import until_ci_flag
from harness.profiles import Bucket
from harness.runs import Provenance
from harness.tokenizer import Tokenizer, load_tokenizer


class LatencyHooks:
    """Progress and console callbacks of a latency run; every one is a no-op here."""

    def waiting(self, url: str) -> None:
        """Readiness polling starts on ``url``."""

    def attempt(self, attempt: int, elapsed_s: float, last: str) -> None:
        """One readiness poll answered ``last``."""

    def ready(self, result: ReadyResult) -> None:
        """The server answered 200 on its ready path."""

    def measuring(self, started: bool) -> None:
        """The buckets start (True) or have stopped, done or not (False)."""

    def bucket(self, mode: str, bucket: Bucket) -> None:
        """A (mode, bucket) starts."""

    def row(self, row: RequestRow, total: int) -> None:
        """One request ended; ``total`` requests in its bucket and phase."""

    def look(self, row: RequestRow, look: Look, pct: float) -> None:
        """``--until-ci PCT``: the interval of the median after the timed request ``row``."""

    def partial(self, path: Path) -> None:
        """The run stopped early; what it measured is saved at ``path``."""

    def repeat(self, index: int, total: int) -> None:
        """Repetition ``index`` of ``total`` starts (``--repeats``)."""


NO_HOOKS = LatencyHooks()


async def measure_latency(
    cfg: LatencyConfig,
    *,
    provenance: Provenance,
    folder: Path,
    hooks: LatencyHooks = NO_HOOKS,
    tokenizer: Tokenizer | None = None,
    state: LatencyState | None = None,
) -> LatencyReport:
    """Run ``cfg`` end to end and save ``folder/latency.json`` (partial on interruption).

    ``state``, when given, is filled with the raw measurements (repeats pool them).
    Raises UnreachableError when the server never gets ready (nothing is saved then:
    nothing was measured), and re-raises whatever stopped the run after saving."""
    tok = tokenizer or load_tokenizer(cfg.tokenizer, server_url=cfg.url, model=cfg.model)
    state = state if state is not None else LatencyState()
    scraping = metrics_enabled(cfg.metrics, cfg.mode)
    recorder = MetricsRecorder(cfg.url, enabled=scraping)
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
    )
    state.readiness_s = ready.elapsed_s
    hooks.ready(ready)
    # Harness extras (requests the grader never sends) only outside pure official mode
    # (docs/attribution.md).
    provenance.server = not_taken() if cfg.mode == "official" else await take_fingerprint(cfg.url)

    def finish(complete: bool) -> LatencyReport:
        report = build_report(cfg, state, provenance, complete=complete)
        report.attribution = section_for(
            recorder.pairs, recorder.notes, scraped=scraping, choice=cfg.metrics
        )
        return report

    try:
        hooks.measuring(True)
        try:
            await run_latency(
                cfg,
                tok,
                state,
                on_bucket=hooks.bucket,
                on_row=hooks.row,
                hook=recorder.bucket_hook,
                on_look=hooks.look,
            )
        finally:
            hooks.measuring(False)
    except BaseException:
        if state.rows:
            hooks.partial(finish(False).save(folder))
        raise
    report = finish(True)
    try:
        if cfg.calibrate:
            # The self-test runs the simulator and its own event loop: off this loop's thread.
            from harness.latency.selftest import quick_calibration

            report.calibration = await asyncio.to_thread(quick_calibration)
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
) -> tuple[LatencyReport, RepeatsReport]:
    """The procedure ``repeats`` times into ``folder/repeat-i/``, one after the other, then
    the pooled ``latency.json`` and the between-run spread ``latency_repeats.json``
    (harness/latency/repeats.py, docs/compare.md)."""
    tok = tokenizer or load_tokenizer(cfg.tokenizer, server_url=cfg.url, model=cfg.model)
    states: list[LatencyState] = []
    reports: list[LatencyReport] = []
    folders: list[str] = []
    for i in range(1, repeats + 1):
        hooks.repeat(i, repeats)
        sub = REPEAT_DIR.format(i=i)
        state = LatencyState()
        reports.append(
            await measure_latency(
                cfg,
                provenance=provenance.model_copy(deep=True),
                folder=folder / sub,
                hooks=hooks,
                tokenizer=tok,
                state=state,
            )
        )
        states.append(state)
        folders.append(sub)
    pooled = build_report(cfg, pool_states(states), provenance, complete=True, pooled=True)
    pooled.settings["repeats"] = repeats
    # --until-ci stops each repeat's buckets on their own: the pool is an estimate if one did
    stopped_early = until_ci_flag([b for r in reports for b in (*r.official, *r.strict)])
    if stopped_early:
        pooled.flags += stopped_early
        pooled.settings["official_procedure"] = False
    pooled.calibration = reports[-1].calibration if reports else None
    pooled.save(folder)
    summary = summarize_repeats(reports, folders)
    summary.provenance = provenance
    summary.save(folder)
    return pooled, summary


def exit_code(report: LatencyReport) -> int:
    """3 when a bucket had no successful request (the target failed), else 0."""
    if any(b.n_ok == 0 for b in report.buckets()):
        return EXIT_TARGET
    return EXIT_OK


def command_line(cfg: LatencyConfig, *, profile: str, folder: Path) -> list[str]:
    """The ``harness latency`` command that re-runs ``cfg`` (recorded as provenance)."""
    argv = [
        "harness",
        "latency",
        "--url",
        cfg.url,
        "--profile",
        profile,
        "--out",
        str(folder),
        "--mode",
        cfg.mode,
        "--endpoint",
        cfg.endpoint,
        "--runs",
        str(cfg.runs),
        "--warmup",
        str(cfg.warmup),
        "--buckets",
        ",".join(b.name for b in cfg.buckets),
        "--timeout",
        f"{cfg.timeout_s:g}",
        "--tokenizer",
        cfg.tokenizer,
        "--seed",
        str(cfg.seed),
        "--ready-timeout",
        f"{cfg.ready_timeout_s:g}",
        "--ready-interval",
        f"{cfg.ready_interval_s:g}",
    ]
    if cfg.model:
        argv += ["--model", cfg.model]
    if cfg.concurrency != 1:
        argv += ["--concurrency", str(cfg.concurrency)]
    if cfg.force_length:
        argv.append("--force-length")
    if not cfg.calibrate:
        argv.append("--no-calibrate")
    if cfg.metrics != "auto":
        argv += ["--metrics", cfg.metrics]
    if cfg.until_ci is not None:
        argv += ["--until-ci", f"{cfg.until_ci:g}"]
    return argv
