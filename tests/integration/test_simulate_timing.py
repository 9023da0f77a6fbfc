"""Timing knobs: deadlines are exact by construction; writes land on them within a tolerance.

The machine is shared (2 cores, other test runs; seen at load average 10): the
tolerance on *when* a write happened is loose (10-25 ms), the schedule itself is
checked exactly, and writes are never early.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import aiohttp
import pytest

pytestmark = pytest.mark.timeout(60)
MS = 1_000_000


async def streamed_arrivals(url: str, body: dict[str, Any]) -> tuple[int, list[int]]:
    """Client send time and the perf_counter_ns at which each SSE event arrived."""
    async with aiohttp.ClientSession() as s:
        sent = time.perf_counter_ns()
        async with s.post(url, json={**body, "stream": True}) as r:
            stamps = []
            async for line in r.content:
                if line.startswith(b"data: {"):
                    stamps.append(time.perf_counter_ns())
    return sent, stamps


async def test_stream_schedule_is_ttft_then_itl(simulator: Any) -> None:
    sim = await simulator(ttft_ms=30, itl_ms=4)
    sent, stamps = await streamed_arrivals(
        sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 20}
    )
    (e,) = sim.log
    assert e.chunk_tokens == [1] * 20
    assert [d - e.arrival_ns for d in e.chunk_deadline_ns] == [
        30 * MS + i * 4 * MS for i in range(20)
    ]
    late = [w - d for w, d in zip(e.chunk_written_ns, e.chunk_deadline_ns, strict=True)]
    assert min(i - d for i, d in zip(e.chunk_intended_ns, e.chunk_deadline_ns, strict=True)) >= 0
    assert statistics.median(late) < 10 * MS
    # the client sees each event after the server started writing it, on the same clock
    assert len(stamps) == 20
    assert all(c > i for c, i in zip(stamps, e.chunk_intended_ns, strict=True))
    # never before the TTFT; the upper end only catches a schedule gone wrong (a loaded
    # 2-core machine delivered the first event 81 ms after sending, 51 ms past its deadline)
    assert 30 * MS <= stamps[0] - sent < 30 * MS + 500 * MS


async def test_tokens_per_chunk_groups_and_times_by_last_token(simulator: Any) -> None:
    sim = await simulator(ttft_ms=10, itl_ms=2, tokens_per_chunk=4)
    await streamed_arrivals(sim.url + "/v1/completions", {"prompt": "x", "max_tokens": 10})
    (e,) = sim.log
    assert e.chunk_tokens == [4, 4, 2]
    assert [d - e.arrival_ns for d in e.chunk_deadline_ns] == [16 * MS, 24 * MS, 28 * MS]


async def test_non_streamed_body_leaves_when_the_last_token_is_due(simulator: Any) -> None:
    sim = await simulator(ttft_ms=20, itl_ms=3)
    async with aiohttp.ClientSession() as s:
        sent = time.perf_counter_ns()
        async with s.post(sim.url + "/v1/completions", json={"prompt": "x", "max_tokens": 11}) as r:
            await r.read()
        got = time.perf_counter_ns()
    (e,) = sim.log
    assert e.chunk_deadline_ns == [e.arrival_ns + 20 * MS + 10 * 3 * MS]
    assert 0 <= e.chunk_written_ns[0] - e.chunk_deadline_ns[0] < 25 * MS
    assert 50 * MS <= got - sent < 80 * MS


async def test_prefill_cost_and_prefix_cache(simulator: Any) -> None:
    sim = await simulator(ttft_ms=5, prefill_ms_per_token=0.1, prefix_cache=True)
    prompt = " the" * 160  # 160 Qwen3.5 tokens: 10 whole blocks of 16
    body = {"prompt": prompt, "max_tokens": 1}
    async with aiohttp.ClientSession() as s:
        for _ in range(2):
            async with s.post(sim.url + "/v1/completions", json=body) as r:
                assert (await r.json())["usage"]["prompt_tokens"] == 160
    cold, warm = sim.log
    assert (cold.cached_prompt_tokens, warm.cached_prompt_tokens) == (0, 159)
    assert cold.chunk_deadline_ns[0] - cold.arrival_ns == 5 * MS + 16 * MS  # 160 x 0.1 ms
    assert warm.chunk_deadline_ns[0] - warm.arrival_ns == 5 * MS + MS // 10  # one token recomputed
    sim.clear_log()  # also empties the cache
    async with aiohttp.ClientSession() as s, s.post(sim.url + "/v1/completions", json=body) as r:
        await r.read()
    assert sim.log[0].cached_prompt_tokens == 0


async def test_overdue_events_leave_together(simulator: Any) -> None:
    """A starved simulator catches up with one write for all overdue events, logged as such."""
    sim = await simulator(ttft_ms=5, itl_ms=1, busy_wait_us=0)

    async def starve() -> None:
        await asyncio.sleep(0.015)
        time.sleep(0.03)  # block the shared event loop: ~30 events fall due meanwhile

    body = {"prompt": "x", "max_tokens": 60}
    (_sent, stamps), _ = await asyncio.gather(
        streamed_arrivals(sim.url + "/v1/completions", body), starve()
    )
    (e,) = sim.log
    assert len(stamps) == 60 and len(e.chunk_written_ns) == 60
    assert all(w >= d for w, d in zip(e.chunk_written_ns, e.chunk_deadline_ns, strict=True))
    batch = max(e.chunk_written_ns.count(w) for w in set(e.chunk_written_ns))
    assert batch >= 10
