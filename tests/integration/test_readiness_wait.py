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
    assert err.value.one_line().startswith(f"{url}/ping not ready after ")
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
