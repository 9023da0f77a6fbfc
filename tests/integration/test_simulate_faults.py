"""Every fault knob does what it says, and the server keeps answering after it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest

from harness.tokenizer import load_tokenizer

pytestmark = pytest.mark.timeout(60)
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
BODY = {"prompt": "Say something.", "max_tokens": 8, "temperature": 0}
TIMEOUT = aiohttp.ClientTimeout(total=2)


async def fetch(
    url: str, body: Any = BODY, stream: bool = False, timeout: aiohttp.ClientTimeout = TIMEOUT
) -> tuple[int, bytes]:
    async with aiohttp.ClientSession(timeout=timeout) as s:
        payload = {**body, "stream": True} if stream else body
        async with s.post(url, json=payload) as r:
            return r.status, await r.read()


async def still_serves(url: str) -> None:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as s, s.get(url + "/ping") as r:
        assert r.status == 200


async def test_error_rate_and_status(simulator: Any) -> None:
    sim = await simulator(error_rate=1.0, error_status=503)
    status, raw = await fetch(sim.url + "/v1/completions")
    assert status == 503 and json.loads(raw)["error"]["code"] == 503
    assert sim.log[0].fault == "error"


async def test_error_rate_share_is_seeded(simulator: Any) -> None:
    a = await simulator(error_rate=0.5, seed=3)
    b = await simulator(error_rate=0.5, seed=3)
    sa = [(await fetch(a.url + "/v1/completions"))[0] for _ in range(20)]
    sb = [(await fetch(b.url + "/v1/completions"))[0] for _ in range(20)]
    assert sa == sb and set(sa) == {200, 500}


@pytest.mark.parametrize("stream", [False, True])
async def test_hang_never_answers(simulator: Any, stream: bool) -> None:
    sim = await simulator(hang_rate=1.0)
    with pytest.raises(asyncio.TimeoutError):
        await fetch(
            sim.url + "/v1/completions", stream=stream, timeout=aiohttp.ClientTimeout(total=0.5)
        )
    assert sim.log[0].fault == "hang" and sim.log[0].status is None
    await still_serves(sim.url)


async def test_drop_mid_stream(simulator: Any) -> None:
    sim = await simulator(drop_rate=1.0)
    with pytest.raises(aiohttp.ClientPayloadError):
        await fetch(sim.url + "/v1/completions", stream=True)
    assert sim.log[0].fault == "drop" and len(sim.log[0].chunk_written_ns) == 4  # half of 8
    with pytest.raises(aiohttp.ServerDisconnectedError):
        await fetch(sim.url + "/v1/completions")
    await still_serves(sim.url)


async def test_malformed_json(simulator: Any) -> None:
    sim = await simulator(malformed_json_rate=1.0)
    status, raw = await fetch(sim.url + "/v1/completions")
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    status, raw = await fetch(sim.url + "/v1/completions", stream=True)
    events = raw.decode().split("\n\n")[:-1]
    bad = [e for e in events if e != "data: [DONE]" and not _parses(e.removeprefix("data: "))]
    assert status == 200 and len(bad) == 1 and events[-1] == "data: [DONE]"


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


async def test_malformed_sse(simulator: Any) -> None:
    sim = await simulator(malformed_sse_rate=1.0)
    _, raw = await fetch(sim.url + "/v1/completions", stream=True)
    text = raw.decode()
    assert "[DONE]" not in text
    lines = [ln for ln in text.split("\n") if ln]
    assert sum(not ln.startswith("data: ") for ln in lines) == 1
    status, raw = await fetch(sim.url + "/v1/completions")  # a JSON answer is left alone
    assert status == 200 and json.loads(raw)["usage"]["completion_tokens"] == 8


async def test_usage_skew(simulator: Any) -> None:
    sim = await simulator(usage_skew=3)
    _, raw = await fetch(sim.url + "/v1/completions")
    body = json.loads(raw)
    u = body["usage"]
    assert TOK.count(body["choices"][0]["text"]) == 8 and u["completion_tokens"] == 11
    assert u["total_tokens"] == u["prompt_tokens"] + 11
    assert sim.log[0].completion_tokens == 8 and sim.log[0].reported_completion_tokens == 11


async def test_think_leak_with_thinking_off(simulator: Any) -> None:
    sim = await simulator(think_leak=True, think_tokens=2)
    chat = {
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 16,
        "chat_template_kwargs": {"enable_thinking": False},
    }
    _, raw = await fetch(sim.url + "/v1/chat/completions", chat)
    content = json.loads(raw)["choices"][0]["message"]["content"]
    assert content.startswith("<think>") and "</think>" in content


async def test_disable_route(simulator: Any) -> None:
    sim = await simulator(disable_route=("/v1/chat/completions", "/ping"))
    status, raw = await fetch(
        sim.url + "/v1/chat/completions", {"messages": [{"role": "user", "content": "x"}]}
    )
    assert status == 404 and json.loads(raw)["error"]["code"] == 404
    async with aiohttp.ClientSession(timeout=TIMEOUT) as s, s.get(sim.url + "/ping") as r:
        assert r.status == 404
    assert (await fetch(sim.url + "/v1/completions"))[0] == 200


async def test_nondeterministic_greedy(simulator: Any) -> None:
    sim = await simulator(nondeterministic=True)
    texts = {
        json.loads((await fetch(sim.url + "/v1/completions"))[1])["choices"][0]["text"]
        for _ in range(3)
    }
    assert len(texts) == 3


async def test_route_divergence(simulator: Any) -> None:
    sim = await simulator(route_divergence=True)
    a = json.loads((await fetch(sim.url + "/v1/completions"))[1])["choices"][0]["text"]
    b = json.loads((await fetch(sim.url + "/invocations"))[1])["choices"][0]["text"]
    c = json.loads((await fetch(sim.url + "/invocations"))[1])["choices"][0]["text"]
    assert a != b and b == c  # each route is deterministic, they just differ


async def test_ignore_max_tokens(simulator: Any) -> None:
    sim = await simulator(ignore_max_tokens=True)
    body = json.loads((await fetch(sim.url + "/v1/completions"))[1])
    assert TOK.count(body["choices"][0]["text"]) == 10 == body["usage"]["completion_tokens"]


async def test_fail_under_concurrency(simulator: Any) -> None:
    sim = await simulator(fail_under_concurrency=2, ttft_ms=100)
    statuses = await asyncio.gather(*[fetch(sim.url + "/v1/completions") for _ in range(6)])
    codes = sorted(s for s, _ in statuses)
    assert codes == [200, 200, 503, 503, 503, 503]
    assert (await fetch(sim.url + "/v1/completions"))[0] == 200  # alone again: fine


async def test_bad_input_5xx(simulator: Any) -> None:
    sim = await simulator(bad_input_5xx=True)
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as s,
        s.post(sim.url + "/v1/completions", data=b"{oops") as r,
    ):
        assert r.status == 500
    assert (await fetch(sim.url + "/v1/completions"))[0] == 200


async def test_output_length_knobs(simulator: Any) -> None:
    sim = await simulator(stop_early_at=3)
    body = json.loads((await fetch(sim.url + "/v1/completions", {**BODY, "ignore_eos": True}))[1])
    assert body["choices"][0]["finish_reason"] == "stop" and body["usage"]["completion_tokens"] == 3
    sim2 = await simulator(output_tokens=5)
    body = json.loads((await fetch(sim2.url + "/v1/completions"))[1])
    assert (
        body["choices"][0]["finish_reason"] == "stop" and TOK.count(body["choices"][0]["text"]) == 5
    )
    forced = json.loads(
        (await fetch(sim2.url + "/v1/completions", {**BODY, "ignore_eos": True}))[1]
    )
    assert forced["usage"]["completion_tokens"] == 8
