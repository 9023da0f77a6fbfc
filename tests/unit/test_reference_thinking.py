"""The thinking middleware as a plain ASGI app, without vLLM."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reference_server.thinking import BodyRejected, ThinkingMiddleware, error_body, rewrite_body


class Recorder:
    """The wrapped app: remembers what reached it and answers 200 with the body it got."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] | None = None
        self.body: bytes | None = None
        self.after_body: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scope = dict(scope)
        if scope["type"] != "http":
            return
        chunks = []
        while True:
            msg = await receive()
            chunks.append(msg.get("body", b""))
            if not msg.get("more_body"):
                break
        self.body = b"".join(chunks)
        if scope["method"] == "POST":
            self.after_body.append(await receive())  # like vLLM's disconnect listener
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": self.body})


async def call(
    body: bytes,
    path: str = "/v1/chat/completions",
    method: str = "POST",
    chunk: int | None = None,
) -> tuple[Recorder, list[dict[str, Any]]]:
    parts = [body] if chunk is None else [body[i : i + chunk] for i in range(0, len(body), chunk)]
    incoming = [
        {"type": "http.request", "body": p, "more_body": i < len(parts) - 1}
        for i, p in enumerate(parts)
    ] + [{"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }
    inner = Recorder()
    await ThinkingMiddleware(inner)(scope, receive, send)
    return inner, sent


def chat(**extra: Any) -> dict[str, Any]:
    return {
        "model": "Qwen/Qwen3.5-4B",
        "messages": [{"role": "user", "content": "Was ist 2+2? Antwort: «vier»"}],
        "max_tokens": 512,
        "temperature": 0.0,
        "stop": ["\n\n"],
        **extra,
    }


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/invocations"])
@pytest.mark.parametrize("flag", [True, False])
async def test_top_level_flag_becomes_enable_thinking(path: str, flag: bool) -> None:
    inner, sent = await call(json.dumps(chat(thinking=flag)).encode(), path=path)
    assert inner.body is not None
    got = json.loads(inner.body)
    assert got == {**chat(), "chat_template_kwargs": {"enable_thinking": flag}}
    headers = dict(inner.scope["headers"])  # type: ignore[index]
    assert headers[b"content-length"] == str(len(inner.body)).encode()
    assert headers[b"content-type"] == b"application/json"
    assert sent[0]["status"] == 200


async def test_explicit_chat_template_kwargs_wins() -> None:
    body = chat(thinking=True, chat_template_kwargs={"enable_thinking": False, "x": 1})
    inner, _ = await call(json.dumps(body).encode())
    got = json.loads(inner.body or b"")
    assert got["chat_template_kwargs"] == {"enable_thinking": False, "x": 1}
    assert "thinking" not in got


async def test_other_chat_template_kwargs_are_kept() -> None:
    inner, _ = await call(json.dumps(chat(thinking=True, chat_template_kwargs={"x": 1})).encode())
    assert json.loads(inner.body or b"")["chat_template_kwargs"] == {
        "enable_thinking": True,
        "x": 1,
    }


async def test_sampling_and_limits_are_never_touched() -> None:
    body = chat(thinking=False, top_p=0.95, seed=7, max_completion_tokens=33, stream=True)
    inner, _ = await call(json.dumps(body).encode())
    got = json.loads(inner.body or b"")
    for key in (
        "max_tokens",
        "temperature",
        "stop",
        "top_p",
        "seed",
        "max_completion_tokens",
        "stream",
    ):
        assert got[key] == body[key]
    assert got["messages"] == body["messages"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        # no flag: byte for byte, odd spacing included
        (
            "/v1/chat/completions",
            b'{ "messages" : [{"role":"user","content":"hi"}],  "max_tokens":4 }',
        ),
        # a completion body on /invocations: no chat template, so the flag means nothing
        ("/invocations", b'{"prompt": "hi", "max_tokens": 4, "thinking": true}'),
        # other routes are never looked at
        ("/v1/completions", b'{"messages": [], "thinking": true}'),
        ("/tokenize", b'{"messages": [], "thinking": true}'),
        # malformed JSON and non-objects: vLLM gives its own 400
        ("/v1/chat/completions", b'{"messages": [], "thinking": true'),
        ("/invocations", b'[{"thinking": true}]'),
        ("/v1/chat/completions", b'\xff\xfe"thinking"'),
        # a wrong-typed chat_template_kwargs is vLLM's to reject
        ("/v1/chat/completions", b'{"messages": [], "thinking": true, "chat_template_kwargs": 5}'),
        ("/v1/chat/completions", b""),
    ],
)
async def test_unchanged_bodies_pass_byte_for_byte(path: str, body: bytes) -> None:
    inner, sent = await call(body, path=path)
    assert inner.body == body
    assert dict(inner.scope["headers"])[b"content-length"] == str(len(body)).encode()  # type: ignore[index]
    assert sent[0]["status"] == 200


async def test_chunked_body_is_reassembled_and_disconnect_still_seen() -> None:
    raw = json.dumps(chat(thinking=True)).encode()
    inner, _ = await call(raw, chunk=7)
    assert json.loads(inner.body or b"")["chat_template_kwargs"] == {"enable_thinking": True}
    # receive() after the body reaches the server's channel (vLLM's disconnect watcher)
    assert inner.after_body == [{"type": "http.disconnect"}]


@pytest.mark.parametrize("value", ["yes", 1, None, {"on": True}])
async def test_non_boolean_flag_is_a_400_and_never_reaches_vllm(value: Any) -> None:
    inner, sent = await call(json.dumps(chat(thinking=value)).encode(), path="/invocations")
    assert inner.scope is None
    assert sent[0]["status"] == 400
    error = json.loads(sent[1]["body"])["error"]
    assert error["param"] == "thinking"
    assert error["code"] == 400
    assert error["message"].startswith("'thinking' must be true or false")


async def test_get_and_lifespan_pass_through() -> None:
    inner, sent = await call(b"", path="/v1/chat/completions", method="GET")
    assert inner.body == b""
    assert sent[0]["status"] == 200

    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> dict[str, Any]:
        return {}

    async def drop(message: Any) -> None:
        return None

    await ThinkingMiddleware(app)({"type": "lifespan"}, nothing, drop)
    assert seen == ["lifespan"]


async def test_client_gone_before_body_means_no_call() -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    called: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(True)

    async def send(message: Any) -> None:
        raise AssertionError("nothing to send")

    scope = {"type": "http", "method": "POST", "path": "/invocations", "headers": []}
    await ThinkingMiddleware(app)(scope, receive, send)
    assert called == []


def test_rewrite_body_pure_cases() -> None:
    assert rewrite_body(b'{"messages": []}') is None
    assert rewrite_body(b'{"messages": "x", "content": "thinking"}') is None
    out = rewrite_body(
        '{"messages": [{"role": "user", "content": "é"}], "thinking": false}'.encode()
    )
    assert (
        out
        == '{"messages": [{"role": "user", "content": "é"}], "chat_template_kwargs": {"enable_thinking": false}}'.encode()
    )
    with pytest.raises(BodyRejected) as info:
        rewrite_body(b'{"messages": [], "thinking": "on"}')
    assert info.value.param == "thinking"


def test_error_body_is_vllm_shaped() -> None:
    assert json.loads(error_body("bad", "thinking")) == {
        "error": {"message": "bad", "type": "BadRequestError", "param": "thinking", "code": 400}
    }
