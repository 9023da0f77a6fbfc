"""Thinking control for vLLM, as one pure ASGI middleware.

The Efficient Qwen graders ask for thinking ON with a top-level ``"thinking": true``
and for thinking OFF with ``"chat_template_kwargs": {"enable_thinking": false}``.
vLLM only understands the second form (it ignores unknown top-level fields), so
this middleware moves the flag where the chat template sees it:

- only ``POST /invocations`` and ``POST /v1/chat/completions`` with a chat body
  (a JSON object with ``messages``) are looked at; every other request, and every
  body without ``thinking``, reaches vLLM byte for byte as it was sent;
- ``thinking`` is removed and becomes ``chat_template_kwargs.enable_thinking``;
  an ``enable_thinking`` the client already put in ``chat_template_kwargs`` wins;
- nothing else is touched (never ``max_tokens``, ``stop`` or sampling);
- a ``thinking`` that is not a boolean is answered here with a 400 in vLLM's
  (OpenAI-style) error shape, because vLLM would silently ignore it and the
  client would get the default it did not ask for.

vLLM loads it with ``--middleware reference_server.thinking.ThinkingMiddleware``
(``app.add_middleware(cls)``, so the constructor takes the wrapped app). It is
pure ASGI (no Starlette import) so it is unit-tested without vLLM.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CHAT_PATHS = frozenset({"/invocations", "/v1/chat/completions"})


class BodyRejected(ValueError):
    """The body cannot be forwarded; ``str()`` is the message for the client."""

    def __init__(self, message: str, param: str) -> None:
        super().__init__(message)
        self.param = param


def rewrite_body(body: bytes) -> bytes | None:
    """The body vLLM should see, or ``None`` when the original goes through unchanged.

    Pure function (the whole rule of this module); raises ``BodyRejected`` for a
    ``thinking`` value that is not a boolean.
    """
    if b'"thinking"' not in body:
        return None  # fast path: most requests, and every latency-benchmark request
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None  # malformed JSON: vLLM answers it with its own 400
    if not isinstance(data, dict) or "thinking" not in data or "messages" not in data:
        return None  # completion bodies have no chat template: the flag means nothing there
    thinking = data["thinking"]
    if not isinstance(thinking, bool):
        raise BodyRejected(
            f"'thinking' must be true or false, got {json.dumps(thinking)}", param="thinking"
        )
    kwargs = data.get("chat_template_kwargs")
    if kwargs is None:
        kwargs = {}
    elif not isinstance(kwargs, dict):
        return None  # wrong type: leave it to vLLM's own validation (400)
    del data["thinking"]
    data["chat_template_kwargs"] = {"enable_thinking": thinking, **kwargs}
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def error_body(message: str, param: str | None, status: int = 400) -> bytes:
    """vLLM's ``ErrorResponse`` shape, so clients parse our 400 like vLLM's own."""
    error = {"message": message, "type": "BadRequestError", "param": param, "code": status}
    return json.dumps({"error": error}).encode("utf-8")


class ThinkingMiddleware:
    """ASGI middleware: maps a top-level ``thinking`` flag into ``chat_template_kwargs``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope.get("type") != "http"
            or scope.get("method") != "POST"
            or scope.get("path") not in CHAT_PATHS
        ):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # client went away before sending its body: nobody to answer
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            new_body = rewrite_body(body)
        except BodyRejected as err:
            await _send_json(send, 400, error_body(str(err), err.param))
            return
        if new_body is not None:
            body = new_body
            scope = dict(scope)
            scope["headers"] = [
                (k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"
            ] + [(b"content-length", str(len(body)).encode("ascii"))]
        await self.app(scope, _Replay(body, receive), send)


class _Replay:
    """A ``receive`` that hands out the buffered body once, then the real channel.

    vLLM keeps calling ``receive`` after the body to notice client disconnects,
    so later calls must reach the server's own ``receive``.
    """

    def __init__(self, body: bytes, receive: Receive) -> None:
        self._body: bytes | None = body
        self._receive = receive

    async def __call__(self) -> Message:
        if self._body is not None:
            body, self._body = self._body, None
            return {"type": "http.request", "body": body, "more_body": False}
        return await self._receive()


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})
