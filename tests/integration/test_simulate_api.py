"""The simulator's API on port 0: shapes, token accounting, streaming, log, bad input."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from harness.tokenizer import load_tokenizer

pytestmark = pytest.mark.timeout(60)

TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
CHAT: dict[str, Any] = {
    "messages": [{"role": "user", "content": "Name three colours."}],
    "max_tokens": 12,
}
COMPLETION: dict[str, Any] = {
    "prompt": "The capital of France is",
    "max_tokens": 12,
    "temperature": 0,
}


async def post(
    url: str, body: Any, session: aiohttp.ClientSession | None = None
) -> tuple[int, Any]:
    own = session is None
    s = session or aiohttp.ClientSession()
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        async with s.post(url, data=data, headers={"Content-Type": "application/json"}) as r:
            raw = await r.read()
            return r.status, json.loads(raw) if raw else None
    finally:
        if own:
            await s.close()


async def stream(url: str, body: dict[str, Any]) -> list[str]:
    """The SSE `data:` payloads, in order."""
    async with aiohttp.ClientSession() as s, s.post(url, json={**body, "stream": True}) as r:
        assert r.status == 200
        assert r.headers["Content-Type"].startswith("text/event-stream")
        raw = (await r.read()).decode()
    assert raw.endswith("\n\n")
    events = raw.split("\n\n")[:-1]
    assert all(e.startswith("data: ") for e in events), events
    return [e.removeprefix("data: ") for e in events]


def stream_text(payloads: list[str], kind: str) -> str:
    out = []
    for p in payloads[:-1]:
        for choice in json.loads(p)["choices"]:
            out.append(
                choice["text"] if kind == "completion" else choice["delta"].get("content", "")
            )
    return "".join(out)


async def test_completion_shape_and_honest_usage(simulator: Any) -> None:
    sim = await simulator()
    status, body = await post(sim.url + "/v1/completions", COMPLETION)
    assert status == 200
    assert body["id"].startswith("cmpl-") and body["object"] == "text_completion"
    assert isinstance(body["created"], int) and body["model"] == "Qwen/Qwen3.5-4B"
    choice = body["choices"][0]
    assert choice["finish_reason"] == "length" and choice["index"] == 0
    u = body["usage"]
    assert u["completion_tokens"] == 12 == TOK.count(choice["text"])
    assert u["prompt_tokens"] == TOK.count(COMPLETION["prompt"])
    assert u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"]


async def test_return_token_ids_lists_the_truth_eos_and_special_tokens_included(
    simulator: Any,
) -> None:
    """vLLM's accounting: usage counts the EOS of a "stop" answer and the special tokens the
    detokeniser leaves out of the text; ``return_token_ids`` lists every one of them;
    --usage-skew changes only usage (docs/simulate.md)."""
    sim = await simulator(output_tokens=6, count_eos=True, special_tokens=2)
    body = {**COMPLETION, "return_token_ids": True}
    _, got = await post(sim.url + "/v1/completions", body)
    choice = got["choices"][0]
    ids = choice["token_ids"]
    assert choice["finish_reason"] == "stop" and got["usage"]["completion_tokens"] == len(ids) == 7
    assert TOK.count(choice["text"]) == 4  # 6 generated, the last 2 special (no text)
    assert ids[:4] == TOK.encode(choice["text"]) and ids[4:] == [248045, 248045, 248046]
    _, plain = await post(sim.url + "/v1/completions", COMPLETION)
    assert "token_ids" not in plain["choices"][0]
    skewed = await simulator(usage_skew=3)
    _, got = await post(skewed.url + "/v1/chat/completions", {**CHAT, "return_token_ids": True})
    assert len(got["choices"][0]["token_ids"]) == 12 and got["usage"]["completion_tokens"] == 15


async def test_chat_shape_and_both_invocation_shapes(simulator: Any) -> None:
    sim = await simulator(models=("Qwen/Qwen3.5-4B", "short"))
    status, chat = await post(sim.url + "/v1/chat/completions", {**CHAT, "model": "short"})
    assert status == 200 and chat["object"] == "chat.completion" and chat["model"] == "short"
    msg = chat["choices"][0]["message"]
    assert msg["role"] == "assistant" and "<think>" not in msg["content"]
    assert chat["usage"]["completion_tokens"] == TOK.count(msg["content"]) == 12
    status, inv_chat = await post(sim.url + "/invocations", CHAT)
    assert status == 200 and inv_chat["object"] == "chat.completion"
    status, inv_cmpl = await post(sim.url + "/invocations", COMPLETION)
    assert status == 200 and inv_cmpl["object"] == "text_completion"
    _, v1 = await post(sim.url + "/v1/completions", COMPLETION)
    assert inv_cmpl["choices"][0]["text"] == v1["choices"][0]["text"]  # one model stack
    status, err = await post(sim.url + "/v1/completions", {**COMPLETION, "model": "gpt-4"})
    assert status == 404 and "does not exist" in err["error"]["message"]


async def test_greedy_is_deterministic_and_sampling_is_not(simulator: Any) -> None:
    sim = await simulator()
    a = [
        (await post(sim.url + "/v1/completions", COMPLETION))[1]["choices"][0]["text"]
        for _ in range(2)
    ]
    assert a[0] == a[1]
    hot = {**COMPLETION, "temperature": 0.8}
    b = [(await post(sim.url + "/v1/completions", hot))[1]["choices"][0]["text"] for _ in range(2)]
    assert b[0] != b[1]


@pytest.mark.parametrize("path", ["/v1/completions", "/v1/chat/completions"])
async def test_stream_equals_non_stream_with_usage_chunk(simulator: Any, path: str) -> None:
    sim = await simulator(tokens_per_chunk=5)
    kind = "completion" if "chat" not in path else "chat"
    body = {**(COMPLETION if kind == "completion" else {**CHAT, "temperature": 0})}
    _, whole = await post(sim.url + path, body)
    payloads = await stream(sim.url + path, {**body, "stream_options": {"include_usage": True}})
    assert payloads[-1] == "[DONE]"
    usage_chunk = json.loads(payloads[-2])
    whole_usage = {k: v for k, v in whole["usage"].items() if v is not None}
    assert usage_chunk["choices"] == [] and usage_chunk["usage"] == whole_usage
    token_chunks = payloads[:-2]
    first = json.loads(token_chunks[0])
    if kind == "chat":
        assert first["object"] == "chat.completion.chunk"
        assert first["choices"][0]["delta"] == {"role": "assistant", "content": ""}
        token_chunks = token_chunks[1:]
    assert len(token_chunks) == 3  # 12 tokens, 5 per chunk
    finishes = [json.loads(p)["choices"][0]["finish_reason"] for p in token_chunks]
    assert finishes == [None, None, "length"]
    text = (
        whole["choices"][0]["text"]
        if kind == "completion"
        else whole["choices"][0]["message"]["content"]
    )
    assert stream_text(payloads[:-1], kind) == text
    no_usage = await stream(sim.url + path, body)
    assert all("usage" not in json.loads(p) for p in no_usage[:-1])


async def test_thinking_on_puts_a_think_block_first(simulator: Any) -> None:
    sim = await simulator(think_tokens=4)
    for extra in ({"thinking": True}, {"chat_template_kwargs": {"enable_thinking": True}}):
        _, body = await post(sim.url + "/v1/chat/completions", {**CHAT, "max_tokens": 20, **extra})
        content = body["choices"][0]["message"]["content"]
        assert content.startswith("<think>\nOkay") and "\n</think>\n\n " in content
        assert body["usage"]["completion_tokens"] == TOK.count(content) == 20
    _, off = await post(
        sim.url + "/v1/chat/completions",
        {**CHAT, "chat_template_kwargs": {"enable_thinking": False}},
    )
    assert "<think>" not in off["choices"][0]["message"]["content"]


async def test_tokenize_models_ping_health(simulator: Any) -> None:
    sim = await simulator(max_model_len=9000)
    status, tok = await post(sim.url + "/tokenize", {"prompt": "hello world"})
    assert status == 200 and tok == {
        "count": 2,
        "max_model_len": 9000,
        "tokens": TOK.encode("hello world"),
        "token_strs": None,
    }
    status, detok = await post(sim.url + "/detokenize", {"tokens": tok["tokens"]})
    assert status == 200 and detok == {"prompt": "hello world"}
    for bad in ({"tokens": "x"}, {"tokens": [999_999_999]}):
        status, _ = await post(sim.url + "/detokenize", bad)
        assert status == 400
    _, chat_tok = await post(sim.url + "/tokenize", {"messages": CHAT["messages"]})
    _, chat = await post(sim.url + "/v1/chat/completions", CHAT)
    assert chat_tok["count"] == chat["usage"]["prompt_tokens"]
    async with aiohttp.ClientSession() as s:
        async with s.get(sim.url + "/v1/models") as r:
            models = await r.json()
        assert [m["id"] for m in models["data"]] == ["Qwen/Qwen3.5-4B", "sim"]
        for path in ("/ping", "/health"):
            async with s.get(sim.url + path) as r:
                assert r.status == 200


BAD = [
    b"{not json",
    b"[1, 2]",
    json.dumps({"max_tokens": 4}).encode(),
    json.dumps({"prompt": 5, "max_tokens": 4}).encode(),
    json.dumps({"prompt": "x", "max_tokens": -3}).encode(),
    json.dumps({"prompt": "x", "max_tokens": "four"}).encode(),
]


@pytest.mark.parametrize("raw", BAD)
async def test_bad_input_gets_400_json_and_server_goes_on(simulator: Any, raw: bytes) -> None:
    sim = await simulator()
    for path in ("/v1/completions", "/invocations"):
        status, body = await post(sim.url + path, raw)
        assert status == 400, (path, body)
        assert body["error"]["code"] == 400 and body["error"]["type"] == "BadRequestError"
        assert body["error"]["message"]
    status, _ = await post(sim.url + "/v1/chat/completions", {"messages": "hi"})
    assert status == 400
    status, _ = await post(sim.url + "/v1/completions", COMPLETION)
    assert status == 200
    assert sim.log[0].status == 400 and sim.log[0].error


async def test_context_longer_than_max_model_len_is_400(simulator: Any) -> None:
    sim = await simulator(max_model_len=64)
    status, body = await post(sim.url + "/v1/completions", {"prompt": " the" * 60, "max_tokens": 8})
    assert status == 400 and "maximum context length is 64" in body["error"]["message"]


async def test_log_records_bodies_connections_and_clears(simulator: Any) -> None:
    sim = await simulator()
    async with aiohttp.ClientSession() as s:  # keep-alive: one connection
        await post(sim.url + "/v1/completions", COMPLETION, s)
        await post(sim.url + "/v1/completions", COMPLETION, s)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as s:
        await post(sim.url + "/v1/completions", COMPLETION, s)
        await post(sim.url + "/v1/completions", COMPLETION, s)
    log = sim.log
    assert [e.body for e in log] == [COMPLETION] * 4
    assert log[0].conn_id == log[1].conn_id and log[1].conn_request_index == 1
    assert len({log[1].conn_id, log[2].conn_id, log[3].conn_id}) == 3
    assert log[2].conn_request_index == log[3].conn_request_index == 0
    assert all(e.peer_port for e in log) and log[2].peer_port != log[3].peer_port
    e = log[0]
    assert (e.method, e.path, e.status, e.kind, e.stream) == (
        "POST",
        "/v1/completions",
        200,
        "completion",
        False,
    )
    assert e.prompt_tokens == TOK.count(COMPLETION["prompt"]) and e.completion_tokens == 12
    assert (
        len(e.chunk_written_ns) == 1
        and e.arrival_ns < e.chunk_intended_ns[0] <= e.chunk_written_ns[0]
    )
    async with aiohttp.ClientSession() as s:
        async with s.get(sim.url + "/_sim/log") as r:
            entries = (await r.json())["entries"]
        assert len(entries) == 4 and entries[0]["body"] == COMPLETION
        async with s.get(sim.url + "/_sim/log?since=3") as r:
            assert [x["index"] for x in (await r.json())["entries"]] == [3]
        async with s.delete(sim.url + "/_sim/log") as r:
            assert r.status == 200
    assert sim.log == []  # the /_sim/ routes are not logged themselves
    status, _ = await post(sim.url + "/v1/completions", b"\x00garbage")
    assert status == 400 and sim.log[0].raw_excerpt == "\x00garbage"
