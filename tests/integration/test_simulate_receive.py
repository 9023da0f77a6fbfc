"""received_ns: when a request's first bytes reached the simulator, before its handler ran."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

pytestmark = pytest.mark.timeout(60)


async def test_keep_alive_large_bodies_and_sim_routes_stamp_their_own_request(
    simulator: Any,
) -> None:
    """Each request's stamp is its own: after the previous request ended (a large body's
    later segments, or a /_sim/ call in between, leave nothing behind) and before its handler."""
    sim = await simulator(ttft_ms=1, itl_ms=0, max_model_len=100_000)
    big = "word " * 60_000  # ~300 kB: many segments on loopback
    async with aiohttp.ClientSession() as s:
        for prompt in (big, "short", big, "short"):
            async with s.post(
                sim.url + "/v1/completions", json={"prompt": prompt, "max_tokens": 2}
            ) as r:
                assert r.status == 200
                await r.read()
            async with s.get(sim.url + "/_sim/log") as r:
                await r.read()
    log = sim.log
    assert len(log) == 4
    assert len({e.conn_id for e in log}) == 1  # one keep-alive connection
    for prev, e in zip([None, *log], log, strict=False):
        assert e.received_ns is not None and e.received_ns <= e.arrival_ns
        if prev is not None:
            assert prev.end_ns is not None and e.received_ns > prev.end_ns


async def test_a_wave_shows_the_simulator_queueing(simulator: Any) -> None:
    """32 requests at once: every stamp precedes its handler, and the handlers started
    one after the other, so the last one waited longer than the first."""
    sim = await simulator(ttft_ms=5, itl_ms=1)

    async def one(s: aiohttp.ClientSession, i: int) -> None:
        body = {"prompt": f"wave {i}", "max_tokens": 4, "stream": True}
        async with s.post(sim.url + "/v1/completions", json=body) as r:
            await r.read()

    async with aiohttp.ClientSession() as s:
        await asyncio.gather(*(one(s, i) for i in range(32)))
    log = sorted(sim.log, key=lambda e: e.arrival_ns)
    assert len(log) == 32
    waits = [e.arrival_ns - e.received_ns for e in log if e.received_ns is not None]
    assert len(waits) == 32 and min(waits) >= 0
    assert waits[-1] > waits[0]


async def test_a_body_sent_late_leaves_no_stamp_for_the_next_request(simulator: Any) -> None:
    """Headers first, the body 50 ms later (after the handler started): the body's bytes
    must not become the stamp of the next request on the connection."""
    sim = await simulator(ttft_ms=1, itl_ms=0)
    body = b'{"prompt": "late body", "max_tokens": 2}'
    head = (
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", sim.port)
    try:
        writer.write(head)
        await writer.drain()
        await asyncio.sleep(0.05)
        writer.write(body)
        await writer.drain()
        await _read_response(reader)
        await asyncio.sleep(0.05)
        writer.write(head + body)  # the next request, 50 ms after the first ended
        await writer.drain()
        await _read_response(reader)
    finally:
        writer.close()
    first, second = sim.log
    assert first.received_ns is not None and second.received_ns is not None
    assert first.end_ns is not None and second.received_ns > first.end_ns


async def _read_response(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return await reader.readexactly(length)
