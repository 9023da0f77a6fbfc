"""Sleeping until an absolute perf_counter_ns deadline, never early, as exactly as asyncio allows.

Event-loop timers have 1 ms resolution: asyncio's epoll rounds a timeout up,
uvloop (libuv) truncates it and counts from a cached loop time, so a plain
``asyncio.sleep`` wakes up to ~1 ms late (asyncio) or early (uvloop). Here the
timer sleep is rounded up to whole milliseconds and the rest (usually a few µs)
is spent polling the clock between ``asyncio.sleep(0)`` yields: never early,
late by timer granularity plus scheduling.

When a request is alone in flight the caller passes ``spin_ns`` (--busy-wait-us):
the last ``spin_ns`` before the deadline are polled the same way, which brings the
median lateness to tens of µs. The yields keep the loop accepting new requests.
With several requests in flight callers pass ``spin_ns=0``: polling would only
take CPU from the others.
"""

from __future__ import annotations

import asyncio
import time

_now = time.perf_counter_ns
_MS = 1_000_000


async def sleep_until(deadline_ns: int, spin_ns: int = 0) -> None:
    remaining = deadline_ns - _now()
    if remaining > spin_ns:
        timer_ns = remaining - spin_ns
        if spin_ns == 0:
            timer_ns = -(-timer_ns // _MS) * _MS  # whole ms, rounded up: never early
        await asyncio.sleep(timer_ns / 1e9)
    while _now() < deadline_ns:
        await asyncio.sleep(0)
