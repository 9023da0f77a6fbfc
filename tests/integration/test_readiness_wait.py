"""Readiness waits against real sockets: a URL whose path hides /ping, a refused port, and
--wait-for-start (client/readiness.py), in harness's own poll and the grader-like one."""

from __future__ import annotations

import socket
import time

import pytest

from harness.client.readiness import listening, wait_ready
from harness.client.urllib_client import GraderPoll
from harness.errors import UnreachableError, UsageError

pytestmark = pytest.mark.timeout(60)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_a_v1_url_is_told_to_drop_v1_at_once(simulator, grader):
    sim = await simulator(ttft_ms=1)
    seen: list[str] = []
    poll = GraderPoll("/ping", 0.2, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UsageError) as err:
        await wait_ready(
            sim.url + "/v1",
            "/ping",
            interval_s=0.2,
            timeout_s=600,
            like_grader=poll,
            on_attempt=lambda n, t, line: seen.append(line),
        )
    assert time.monotonic() - started < 5
    assert err.value.one_line() == (
        f"--url {sim.url}/v1: GET {sim.url}/v1/ping answers 404, {sim.url}/ping answers 200"
        f" — drop /v1 from --url: --url {sim.url}"
    )
    assert seen == ["HTTP 404 (0 s of 600 s)"]


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_a_refused_port_stops_after_ten_seconds_with_a_line_per_poll(grader):
    url = f"http://127.0.0.1:{free_port()}"
    seen: list[str] = []
    poll = GraderPoll("/ping", 2.0, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UnreachableError, match=r"nothing listens on 127\.0\.0\.1:"):
        await wait_ready(
            url,
            "/ping",
            interval_s=2.0,
            timeout_s=600,
            like_grader=poll,
            on_attempt=lambda n, t, line: seen.append(line),
        )
    assert 10 <= time.monotonic() - started < 20
    assert len(seen) >= 5 and all(s.startswith("connection refused (") for s in seen)


async def test_wait_for_start_waits_to_the_ready_timeout():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(UnreachableError) as err:
        await wait_ready(url, "/ping", interval_s=0.5, timeout_s=2.0, wait_for_start=True)
    assert err.value.one_line().startswith(f"{url}/ping not ready within 2 s (")
    assert "last: connection refused" in err.value.one_line()


async def test_listening_waits_for_a_late_server_only_when_told():
    import asyncio

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(UnreachableError, match="pass --wait-for-start"):
        await listening(url, timeout_s=1.0)  # at once: nothing listens yet

    async def late() -> asyncio.Server:
        await asyncio.sleep(1.0)
        return await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", port)

    starting = asyncio.create_task(late())
    seen: list[str] = []
    got = await listening(
        url, timeout_s=1.0, wait_s=10.0, interval_s=0.3, on_attempt=lambda n, t, s: seen.append(s)
    )
    server = await starting
    server.close()
    await server.wait_closed()
    assert got.ready and got.attempts == len(seen) + 1 >= 2
    assert all(s.startswith("connection refused (") and s.endswith(" of 10 s)") for s in seen)


@pytest.fixture
async def page_server():
    """An aiohttp app: 503 on /ping (a server starting), an HTML 404 page on /page/ping."""
    from aiohttp import web

    async def starting(_: web.Request) -> web.Response:
        return web.Response(status=503, text="loading")

    async def page(_: web.Request) -> web.Response:
        return web.Response(status=404, text="<html>Not Found</html>", content_type="text/html")

    app = web.Application()
    app.router.add_get("/ping", starting)
    app.router.add_get("/page/ping", page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}"
    await runner.cleanup()


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_https_against_plain_http_is_told_to_use_http_at_once(simulator, grader):
    sim = await simulator(ttft_ms=1)
    tls = sim.url.replace("http://", "https://")
    poll = GraderPoll("/ping", 2.0, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UsageError) as err:
        await wait_ready(tls, "/ping", interval_s=2.0, timeout_s=600, like_grader=poll)
    assert time.monotonic() - started < 5
    assert err.value.one_line() == (
        f"--url {tls}: the server there speaks plain HTTP, not HTTPS (TLS handshake: wrong"
        f" version number) — use http://: --url {sim.url}"
    )


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_a_name_that_does_not_resolve_stops_at_once(grader):
    poll = GraderPoll("/ping", 2.0, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UnreachableError) as err:
        await wait_ready("http://nosuch.invalid:8080", interval_s=2.0, timeout_s=600,
                         like_grader=poll, option="serve.url")  # fmt: skip
    assert time.monotonic() - started < 10
    line = err.value.one_line()
    assert line.startswith(
        "serve.url http://nosuch.invalid:8080: host 'nosuch.invalid' not found ("
    )
    assert line.endswith(
        "— check the host name in serve.url (127.0.0.1 for a server on this machine)"
    )


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_a_web_page_on_the_ready_path_is_not_the_model_server(page_server, grader):
    poll = GraderPoll("/page/ping", 2.0, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UnreachableError) as err:
        await wait_ready(page_server, "/page/ping", interval_s=2.0, timeout_s=600,
                         like_grader=poll)  # fmt: skip
    assert time.monotonic() - started < 5
    assert err.value.one_line() == (
        f"GET {page_server}/page/ping answers HTTP 404 with a web page (text/html): this is a"
        " web page, not the model server — check --url and its port"
    )


@pytest.mark.parametrize("grader", [False, True], ids=["harness", "grader-like"])
async def test_a_wait_that_runs_out_says_the_timeout_it_was_given(page_server, grader):
    seen: list[str] = []
    poll = GraderPoll("/ping", 1.0, 2.0, 120) if grader else None
    started = time.monotonic()
    with pytest.raises(UnreachableError) as err:
        await wait_ready(page_server, interval_s=1.0, timeout_s=2.5, like_grader=poll,
                         on_attempt=lambda n, t, line: seen.append(line))  # fmt: skip
    assert 2.5 <= time.monotonic() - started < 5  # the whole timeout, not the last whole interval
    line = err.value.one_line()
    assert line.startswith(f"{page_server}/ping not ready within 2.5 s (4")
    assert line.endswith(" s, last: HTTP 503) — check --url and its port, or raise --ready-timeout")
    assert seen[-1].startswith("HTTP 503 (")
