"""A closed loop: ``concurrency`` requests in flight, each worker sending its next when one ends.

The schedule is absolute: the first wave is due at t0, each later request when
its worker's previous one ended; that due time is recorded on the request
(``intended_ns``) so the dispatch lag (actual send − due) can be reported.
Latency strict mode, the self-test and the throughput sweep all use it. The
garbage collector is paused while it runs (gc_pause.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import aiohttp

from harness.client.gc_pause import gc_paused
from harness.client.http import send_request
from harness.client.records import RequestRecord


async def closed_loop(
    session: aiohttp.ClientSession,
    url: str,
    endpoint: str,
    bodies: list[bytes],
    concurrency: int,
    *,
    stream: bool,
    on_done: Callable[[int, RequestRecord], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> tuple[int, list[RequestRecord | None]]:
    """Send ``bodies`` in order; returns (t0_ns, records in body order).

    Streamed responses are left unparsed (``parse=False``): the caller parses them
    after the loop, so parsing never delays another request's timestamps. ``stop``,
    asked before each send, ends the loop early: the bodies not sent get ``None``.
    """
    n = len(bodies)
    records: list[RequestRecord | None] = [None] * n
    next_index = 0

    async def worker(due_ns: int) -> None:
        nonlocal next_index
        while next_index < n and not (stop and stop()):
            i = next_index
            next_index += 1
            rec = await send_request(
                session,
                url,
                bodies[i],
                endpoint=endpoint,
                stream=stream,
                intended_ns=due_ns,
                parse=False,
            )
            due_ns = rec.end_ns or time.perf_counter_ns()
            records[i] = rec
            if on_done:
                on_done(i, rec)

    with gc_paused():  # a full collection mid-wave would show up as client error
        t0 = time.perf_counter_ns()
        workers = [asyncio.create_task(worker(t0)) for _ in range(min(concurrency, n))]
        try:
            await asyncio.gather(*workers)
        finally:
            for w in workers:
                w.cancel()
    return t0, records
