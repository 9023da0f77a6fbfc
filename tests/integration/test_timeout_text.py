"""A timed-out request says once what timed out and after how long (harness/client/failure.py:
``no_answer``), in both clients: the grader's urllib one and harness's aiohttp one."""

from __future__ import annotations

import asyncio

import pytest

from harness.client.failure import no_answer
from harness.client.http import HttpOptions, make_session, send_request
from harness.client.records import ErrorKind
from harness.client.urllib_client import post_like_grader

pytestmark = pytest.mark.timeout(60)

BODY = {"prompt": "hi", "max_tokens": 4, "temperature": 0.0}


def test_no_answer_says_what_and_how_long():
    assert no_answer("http://h/x", 600.0) == "no answer from http://h/x within 600 s"
    assert no_answer("http://h/x", 0.5) == "no answer from http://h/x within 0.5 s"
    assert no_answer("http://h/x", None) == "no answer from http://h/x in time"
    assert (
        no_answer("http://h/x", 10, connecting=True)
        == "could not connect to http://h/x within 10 s"
    )


async def test_the_graders_client_says_timeout_once(simulator):
    sim = await simulator(ttft_ms=1, hang_rate=1.0)
    url = sim.url + "/invocations"
    rec = await asyncio.to_thread(post_like_grader, url, BODY, timeout_s=0.5)
    assert rec.error is not None and rec.error.kind is ErrorKind.TIMEOUT
    assert rec.error.one_line() == f"timeout: no answer from {url} within 0.5 s"
    assert rec.error.one_line().count("timed out") == 0


async def test_the_aiohttp_client_says_timeout_once(simulator):
    sim = await simulator(ttft_ms=1, hang_rate=1.0)
    url = sim.url + "/v1/completions"
    async with make_session(HttpOptions(timeout_s=0.5)) as session:
        rec = await send_request(session, url, BODY, endpoint="/v1/completions")
    assert rec.error is not None and rec.error.kind is ErrorKind.TIMEOUT
    assert rec.error.one_line() == f"timeout: no answer from {url} within 0.5 s"
