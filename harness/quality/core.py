"""The quality core: one :class:`QualityConfig` in, one :class:`QualityReport` out.

``measure_quality`` waits for the server like the other measurements, sets the
offline environment lm-eval needs for its own duration only (restored after,
so a gate's next step runs in the process it started in), runs every
benchmark, and saves ``quality.json``; on Ctrl-C or an error the partial
report is saved (the answer cache in the run folder lets a re-run resume)
before the exception goes on.

Unlike the latency and throughput cores it is synchronous: lm-eval is, and it
drives its own event loops; running it in a worker thread under an async core
would leave it running on after Ctrl-C.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.data.samples import SAMPLE_KEY, SAMPLE_REASON, sample_files
from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_OK
from harness.kinds.record import RunEnv
from harness.manifest.record import record_manifest
from harness.provenance import Provenance
from harness.quality.config import QualityConfig
from harness.quality.hooks import NO_HOOKS, QualityHooks
from harness.quality.report import QualityReport

OFFLINE_VARS = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextmanager
def offline_env(nltk_data: Path, *, verbose: bool = False) -> Iterator[None]:
    """lm-eval's offline environment for the duration of the block, then what was there.

    lm-eval and datasets must never reach the network; IFEval's scorer finds punkt
    under ``nltk_data``; our bars replace tqdm's and datasets'; lm-eval's log, unless ``verbose``,
    drops its warning for every default it "overwrites" with the same value. ``PATH`` is
    emptied: lm-eval runs ``git describe`` for its results' git hash and lets git's
    "fatal: not a git repository" through to our stderr wherever the run is not in a
    checkout; with no ``git`` found it takes its own quiet fallback (no hash). Nothing
    else a benchmark does starts a program."""
    import datasets
    import nltk

    # TQDM_DISABLE reaches only a tqdm imported after it is set (tqdm reads it at import):
    # datasets' own bars ("Generating test split", "Filter: 100%") have their own switch
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    names = (*OFFLINE_VARS, "TQDM_DISABLE", "NLTK_DATA", "PATH")
    saved = {name: os.environ.get(name) for name in names}
    saved_path = list(nltk.data.path)
    logger = logging.getLogger("lm_eval")
    saved_level = logger.level
    for name in OFFLINE_VARS:
        os.environ[name] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    os.environ["NLTK_DATA"] = str(nltk_data)
    os.environ["PATH"] = ""
    if str(nltk_data) not in nltk.data.path:
        nltk.data.path.insert(0, str(nltk_data))
    if not verbose:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        nltk.data.path[:] = saved_path
        logger.setLevel(saved_level)
        if bars:
            datasets.enable_progress_bars()


def lm_eval_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lm_eval")
    except PackageNotFoundError:
        return os.environ.get("LM_EVAL_VERSION", "unknown")


def new_report(cfg: QualityConfig, provenance: Provenance) -> QualityReport:
    """The report before the first benchmark: settings, and what makes it non-official."""
    spec = cfg.spec
    report = QualityReport(
        provenance=provenance,
        url=cfg.url,
        endpoint=cfg.endpoint or spec.endpoint,
        model=cfg.model_name,
        official=not cfg.non_official(),
        non_official=cfg.non_official(),
        limit=cfg.limit,
        lm_eval_version=lm_eval_version(),
        data_dir=str(cfg.data_dir),
        decide_seed=cfg.seed if cfg.decide else None,
        complete=False,
    )
    if report.lm_eval_version != spec.lm_eval_version:
        report.non_official["lm_eval_version"] = report.lm_eval_version
        report.official = False
    return report


def mark_sample_data(report: QualityReport, cfg: QualityConfig, route: str) -> None:
    """A run on harness's sample data is not official, whatever its settings: the reason
    and the files go under ``non_official`` (the gate never passes on it)."""
    if route != "jsonl":
        return
    files = sample_files(cfg.data_dir, [b.task for b in cfg.benchmarks()])
    if files:
        report.non_official[SAMPLE_KEY] = f"{SAMPLE_REASON}: {', '.join(files)}"
        report.official = False


def measure_quality(
    cfg: QualityConfig,
    *,
    provenance: Provenance,
    hooks: QualityHooks = NO_HOOKS,
    verbose: bool = False,
) -> QualityReport:
    """Run every benchmark of ``cfg`` and save ``cfg.folder/quality.json``.

    Data and punkt are checked once (exit 2 before any request), the server is waited
    for once (the grader's one ``GET /ping``) and, unless ``--fresh``, asked who it is
    (``identity.py``: the answer cache reuses only that server's answers), lm-eval's
    offline environment is set for the benchmarks only and restored after them."""
    from harness.quality.identity import not_asked, take_identity
    from harness.quality.preflight import preflight, wait_until_ready
    from harness.quality.suite import run_benchmarks

    report = new_report(cfg, provenance)
    route = preflight(cfg)
    mark_sample_data(report, cfg, route)
    hooks.waiting(cfg.url.rstrip("/") + cfg.profile.server.ready_path)
    hooks.ready(asyncio.run(wait_until_ready(cfg, hooks.attempt)))
    # whose answers the cache may reuse; --fresh reuses none and asks nothing more
    identity = (
        take_identity(cfg.url, cfg.endpoint_url, cfg.model_name)
        if cfg.resume
        else not_asked(cfg.endpoint_url, cfg.model_name)
    )
    with offline_env(cfg.nltk_data, verbose=verbose):
        try:
            hooks.measuring(True)
            try:
                run_benchmarks(cfg, route, identity, report, hooks)
            finally:
                hooks.measuring(False)
        except BaseException as err:
            # Ctrl-C always leaves a report (resume reads the folder); an error only when
            # a benchmark was already scored.
            if report.benchmarks or isinstance(err, KeyboardInterrupt | asyncio.CancelledError):
                report.complete = False
                hooks.partial(report.save(cfg.folder))
            raise
    # what ran: a separate step after the benchmarks, whose requests are the grader's
    asyncio.run(record_manifest(cfg.folder, cfg.url, taken="separate step"))
    return report


def exit_code(report: QualityReport) -> int:
    """4 when a benchmark could not be scored, 1 when a gate failed, else 0."""
    if not report.complete:
        return EXIT_INCOMPLETE
    return EXIT_OK if report.passed else EXIT_FAIL


def run(cfg: QualityConfig, env: RunEnv[QualityHooks]) -> QualityReport:
    """The kind record's core (harness/kinds/record.py: ``run``): the run's provenance, folder
    and hooks from ``env``."""
    return measure_quality(cfg, provenance=env.provenance, hooks=env.hooks)
