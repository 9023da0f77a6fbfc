"""A ``/metrics`` page that arrives in several TCP writes is read whole.

vLLM's page outgrows one read once its histograms fill; the scrape and the
manifest read only the first chunk and failed on a line cut mid-word
("Invalid metric type: histogr"). Here the server flushes the page in pieces
with a pause between them, the way a large page arrives.
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from aiohttp import web

from harness.client.body import BodyTooLarge, read_body
from harness.client.metrics import scrape
from harness.manifest.take import _get

FAMILIES = 400  # about 100 KiB of text: many reads of a socket


def page() -> str:
    lines = []
    for i in range(FAMILIES):
        name = f"vllm:family_{i}_seconds"
        lines += [
            f"# HELP {name} A histogram, as vLLM writes them.",
            f"# TYPE {name} histogram",
            f'{name}_bucket{{le="0.1",model_name="m"}} {i}.0',
            f'{name}_bucket{{le="+Inf",model_name="m"}} {i + 1}.0',
            f'{name}_count{{model_name="m"}} {i + 1}.0',
            f'{name}_sum{{model_name="m"}} {i * 0.5}',
        ]
    return "\n".join(lines) + "\n"


async def _serve_in_pieces(request: web.Request) -> web.StreamResponse:
    body = page().encode()
    resp = web.StreamResponse(headers={"Content-Type": "text/plain; version=0.0.4"})
    await resp.prepare(request)
    step = 4096
    for start in range(0, len(body), step):
        await resp.write(body[start : start + step])
        await asyncio.sleep(0.002)
    await resp.write_eof()
    return resp


async def _with_server(check):  # type: ignore[no-untyped-def]
    app = web.Application()
    app.router.add_get("/metrics", _serve_in_pieces)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        async with aiohttp.ClientSession() as session:
            return await check(session, f"http://127.0.0.1:{port}")
    finally:
        await runner.cleanup()


def test_the_scrape_reads_a_page_sent_in_pieces() -> None:
    got = asyncio.run(_with_server(lambda s, url: scrape(s, url)))
    assert got.note is None
    assert got.snapshot is not None
    last = f"vllm:family_{FAMILIES - 1}_seconds"
    assert got.snapshot.values[f"{last}_count"] == FAMILIES
    assert got.snapshot.values[f"{last}_sum"] == (FAMILIES - 1) * 0.5


def test_the_manifest_reads_a_page_sent_in_pieces() -> None:
    text, how = asyncio.run(_with_server(lambda s, url: _get(s, url + "/metrics", 10)))
    assert how == "answered"
    assert text == page()


def test_a_body_past_the_cap_is_refused_not_cut() -> None:
    async def check(session: aiohttp.ClientSession, url: str) -> bytes:
        async with session.get(url + "/metrics") as resp:
            return await read_body(resp, 10_000)

    with pytest.raises(BodyTooLarge):
        asyncio.run(_with_server(check))
