"""Before a quality run's first request: data and punkt checked once, then the grader's one ping.

The quality core calls :func:`preflight` (missing data is a usage error, exit 2,
before any request) and then :func:`wait_until_ready`, each exactly once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import aiohttp

from harness.client.readiness import ReadyResult, probe, wait_ready
from harness.client.ready_faults import fault
from harness.data.benchmarks import task_data
from harness.data.hf_cache import DataRoute, choose_route, datasets_cache_dir, missing_from_cache
from harness.data.layout import require_data
from harness.data.punkt import ensure_punkt
from harness.data.validate import require_readable
from harness.errors import DataMissingError, UnreachableError
from harness.quality.config import QualityConfig

GRADER_PING_TIMEOUT_S = 5.0  # urlopen(f"{url}/ping", timeout=5) before the benchmarks


def preflight(cfg: QualityConfig) -> DataRoute:
    """Everything that can fail before the first request: data, punkt_tab (written if missing).

    Returns the data route."""
    tasks = [b.task for b in cfg.benchmarks()]
    route = choose_route(tasks, cfg.data_route)
    if route == "hf-cache":
        missing = missing_from_cache(tasks)
        if missing:
            names = ", ".join(src.hf_path for src in missing)
            raise DataMissingError(
                f"not in the Hugging Face datasets cache ({datasets_cache_dir()}): {names}",
                hint="load them once online with HF_HOME set, or use the data folder route",
            )
    else:
        require_data(cfg.data_dir, tasks)
        require_readable(cfg.data_dir, tasks)
    if any(task_data(t).needs_punkt for t in tasks):
        ensure_punkt(cfg.nltk_data)
    return route


async def wait_until_ready(
    cfg: QualityConfig, on_attempt: Callable[[int, float, str], None] | None = None
) -> ReadyResult:
    """One ``GET /ping`` as the grader's quality script sends it, or polls when asked to
    (``ready_timeout_s > 0``: every ``ready_interval_s``; on a ready server that is still
    exactly one ``GET /ping``)."""
    ready_path = cfg.profile.server.ready_path
    if cfg.ready_timeout_s > 0:
        return await wait_ready(
            cfg.url,
            ready_path,
            interval_s=cfg.ready_interval_s,
            timeout_s=cfg.ready_timeout_s,
            on_attempt=on_attempt,
            wait_for_start=cfg.wait_for_start,
        )
    url = cfg.url.rstrip("/") + ready_path
    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        seen = await probe(session, url, timeout_s=GRADER_PING_TIMEOUT_S)
    certain = fault(seen, cfg.url, ready_path)  # https:// to plain HTTP, a web page, …
    if certain is not None:
        raise certain
    if not (seen.isdigit() and 200 <= int(seen) < 300):  # urllib raises on any other status
        raise UnreachableError(
            f"{url} is not ready: {seen}",
            hint="start the server first (the grader's quality script pings once and stops), or check --url",
        )
    return ReadyResult(
        url=url, ready=True, elapsed_s=time.perf_counter() - started, attempts=1, last=seen
    )
