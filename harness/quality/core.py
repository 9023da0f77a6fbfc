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
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.client.readiness import ReadyResult
from harness.data.layout import default_data_dir
from harness.data.punkt import default_nltk_data
from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_OK
from harness.profiles import Benchmark, Profile
from harness.quality.config import QualityConfig
from harness.quality.report import QualityReport
from harness.quality.transport import NoProgress, ProgressSink
from harness.runs import Provenance

OFFLINE_VARS = ("HF_DATASETS_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


class QualityHooks:
    """Progress and console callbacks of a quality run; every one is a no-op here."""

    def waiting(self, url: str) -> None:
        """Readiness polling starts on ``url``."""

    def ready(self, result: ReadyResult) -> None:
        """The server answered 200 on its ready path."""

    def measuring(self, started: bool) -> None:
        """The benchmarks start (True) or have stopped, done or not (False)."""

    def progress(self, bench: Benchmark) -> ProgressSink:
        """The progress sink of one benchmark's requests."""
        return NoProgress()

    def partial(self, path: Path) -> None:
        """The run stopped early; what it measured is saved at ``path``."""

    def looked(self, bench: Benchmark, asked: int, total: int, risk: float | None) -> None:
        """``--decide`` checked ``bench`` after ``asked`` of ``total`` documents (risk: the
        chance the full set lands on the other side of the threshold, were it decided now)."""


NO_HOOKS = QualityHooks()


@contextmanager
def offline_env(nltk_data: Path, *, verbose: bool = False) -> Iterator[None]:
    """lm-eval's offline environment for the duration of the block, then what was there.

    lm-eval and datasets must never reach the network; IFEval's scorer finds punkt
    under ``nltk_data``; our bars replace tqdm's; lm-eval's log, unless ``verbose``,
    drops its warning for every default it "overwrites" with the same value."""
    import nltk

    names = (*OFFLINE_VARS, "TQDM_DISABLE", "NLTK_DATA")
    saved = {name: os.environ.get(name) for name in names}
    saved_path = list(nltk.data.path)
    logger = logging.getLogger("lm_eval")
    saved_level = logger.level
    for name in OFFLINE_VARS:
        os.environ[name] = "1"
    os.environ["TQDM_DISABLE"] = "1"
    os.environ["NLTK_DATA"] = str(nltk_data)
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


def from_profile(
    profile: Profile,
    url: str,
    folder: Path,
    *,
    data_dir: Path | None = None,
    nltk_data: Path | None = None,
    limit: float | None = None,
    only: str | None = None,
    **overrides: Any,
) -> QualityConfig:
    """The profile's quality procedure at ``url`` into ``folder``, then ``overrides``.

    ``data_dir`` defaults to ``$HARNESS_DATA_DIR`` or the cache's ``data/``, NLTK data
    to its ``nltk_data/`` when that holds punkt_tab, else the harness cache (punkt.py),
    ``limit`` to the profile's; ``only`` is the CLI's comma list. Readiness is polled like
    latency's (the profile's interval and timeout): on a ready server that is the one
    ``GET /ping`` the grader's quality script sends."""
    spec = profile.require_quality()
    data = (data_dir or default_data_dir()).resolve()
    base: dict[str, Any] = {
        "ready_timeout_s": profile.readiness.timeout_s,
        "ready_interval_s": profile.readiness.poll_interval_s,
    }
    base.update({k: v for k, v in overrides.items() if v is not None})
    if base.get("decide") and base.get("seed") is None:
        base["seed"] = random.SystemRandom().randrange(1 << 31)  # recorded; --seed replays it
    return QualityConfig(
        url=url,
        profile=profile,
        data_dir=data,
        nltk_data=(nltk_data or default_nltk_data(data)).resolve(),
        folder=folder,
        limit=limit if limit is not None else spec.limit,
        only=tuple(n.strip() for n in (only or "").split(",") if n.strip()),
        **base,
    )


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


def measure_quality(
    cfg: QualityConfig,
    *,
    provenance: Provenance,
    hooks: QualityHooks = NO_HOOKS,
    verbose: bool = False,
) -> QualityReport:
    """Run every benchmark of ``cfg`` and save ``cfg.folder/quality.json``.

    Data and punkt are checked once (exit 2 before any request), the server is waited
    for once (the grader's one ``GET /ping``), lm-eval's offline environment is set for
    the benchmarks only and restored after them."""
    from harness.quality.preflight import preflight, wait_until_ready
    from harness.quality.runner import run_benchmarks

    report = new_report(cfg, provenance)
    route = preflight(cfg)
    hooks.waiting(cfg.url.rstrip("/") + cfg.profile.server.ready_path)
    hooks.ready(asyncio.run(wait_until_ready(cfg)))
    with offline_env(cfg.nltk_data, verbose=verbose):
        try:
            hooks.measuring(True)
            try:
                run_benchmarks(cfg, route, report, hooks)
            finally:
                hooks.measuring(False)
        except BaseException as err:
            # Ctrl-C always leaves a report (resume reads the folder); an error only when
            # a benchmark was already scored.
            if report.benchmarks or isinstance(err, KeyboardInterrupt | asyncio.CancelledError):
                report.complete = False
                hooks.partial(report.save(cfg.folder))
            raise
    return report


def exit_code(report: QualityReport) -> int:
    """4 when a benchmark could not be scored, 1 when a gate failed, else 0."""
    if not report.complete:
        return EXIT_INCOMPLETE
    return EXIT_OK if report.passed else EXIT_FAIL


def command_line(cfg: QualityConfig, *, profile: str) -> list[str]:
    """The ``harness quality`` command that re-runs ``cfg`` (recorded as provenance)."""
    argv = [
        "harness",
        "quality",
        "--url",
        cfg.url,
        "--profile",
        profile,
        "--out",
        str(cfg.folder),
        "--data-dir",
        str(cfg.data_dir),
        "--nltk-data",
        str(cfg.nltk_data),
    ]
    if cfg.limit is not None:
        argv += ["--limit", f"{cfg.limit:g}"]
    if cfg.only:
        argv += ["--only", ",".join(cfg.only)]
    if cfg.max_gen_toks is not None:
        argv += ["--max-gen-toks", str(cfg.max_gen_toks)]
    if cfg.stream:
        argv += ["--stream", "--idle-timeout", f"{cfg.idle_timeout_s:g}"]
    if cfg.endpoint:
        argv += ["--endpoint", cfg.endpoint]
    if cfg.model:
        argv += ["--model", cfg.model]
    if not cfg.resume:
        argv.append("--fresh")
    if cfg.decide:
        argv += ["--decide", "--seed", str(cfg.seed)]
    if cfg.ready_timeout_s:
        argv += ["--ready-timeout", f"{cfg.ready_timeout_s:g}"]
    return argv
