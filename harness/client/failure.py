"""A failed request told in the server's own words, with what to do about it.

Every failed request row keeps the HTTP status and the first ``EXCERPT``
characters of the server's answer (``error_body``). The console shows the first
failure of a run through :func:`describe`, and the risk flag that counts
failures carries its short form, so a bare "HTTP 404" never stands alone: a 404
that names a model says which model was asked for and that ``--model`` picks
another; a 404 that does not is a missing route.

What kind of failure an exception is (:class:`ErrorKind`) is decided in one
place, :data:`AIOHTTP_ERRORS`, read by :func:`error_kind`: the request client,
the readiness wait and the grader's throughput loop all classify aiohttp's
exceptions there, so one exception is one kind wherever it is raised. Like
httpx at its boundary, the table lists the most specific class first; the first
row an exception is an instance of names its kind.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any

import aiohttp

EXCERPT = 300  # characters of a failed answer kept in the report
NOT_THE_SERVER = "this is a web page, not the model server"
_SPACE = re.compile(r"\s+")


class ErrorKind(StrEnum):
    CONNECT = "connect"  # refused, DNS, reset before a response
    TIMEOUT = "timeout"  # total or idle-read timeout
    HTTP_STATUS = "http_status"  # status >= 400
    DISCONNECTED = "disconnected"  # the server closed the connection mid-response
    MALFORMED_JSON = "malformed_json"
    MALFORMED_SSE = "malformed_sse"  # bad event JSON, no [DONE], stray bytes
    EMPTY_CHOICES = "empty_choices"
    CANCELLED = "cancelled"  # Ctrl-C while in flight


# (exception class, kind), most specific first. A CONNECT row names a connection that
# failed; once the server has answered (its status line read), the same failure is
# DISCONNECTED: the connection broke mid-response (error_kind).
AIOHTTP_ERRORS: tuple[tuple[type[BaseException], ErrorKind], ...] = (
    (aiohttp.ContentTypeError, ErrorKind.MALFORMED_JSON),  # resp.json() on an answer not JSON
    (aiohttp.ClientConnectorError, ErrorKind.CONNECT),  # refused, DNS, TLS: no connection
    (aiohttp.ServerTimeoutError, ErrorKind.TIMEOUT),  # the connect or between-reads limit
    (TimeoutError, ErrorKind.TIMEOUT),  # the total limit
    (aiohttp.ServerDisconnectedError, ErrorKind.DISCONNECTED),  # the server closed it
    (aiohttp.ClientPayloadError, ErrorKind.DISCONNECTED),  # the body broke off
    (aiohttp.ClientResponseError, ErrorKind.HTTP_STATUS),  # a status line aiohttp refused
    (aiohttp.ClientConnectionError, ErrorKind.CONNECT),  # reset, broken pipe, other OS errors
    (aiohttp.ClientError, ErrorKind.CONNECT),  # the request never went out (invalid URL, …)
)


def error_kind(err: aiohttp.ClientError | TimeoutError, *, answered: bool) -> ErrorKind:
    """The kind of a failed request's exception: the first row of :data:`AIOHTTP_ERRORS` it
    is an instance of; a CONNECT row once the server has ``answered`` is DISCONNECTED."""
    for cls, kind in AIOHTTP_ERRORS:
        if isinstance(err, cls):
            return ErrorKind.DISCONNECTED if kind is ErrorKind.CONNECT and answered else kind
    raise TypeError(f"{type(err).__name__} is neither an aiohttp error nor a timeout")


def excerpt(raw: bytes | str) -> str:
    """The first ``EXCERPT`` characters of an answer body, as text."""
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    return text[:EXCERPT]


def server_message(body: str | None) -> str | None:
    """The message in an error answer: OpenAI/vLLM ``error.message``, ``message``, ``detail``,
    else the raw text with its whitespace folded."""
    if not body:
        return None
    try:
        data: Any = json.loads(body)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error")
        for candidate in (
            err.get("message") if isinstance(err, dict) else err,
            data.get("message"),
            data.get("detail"),
        ):
            if isinstance(candidate, str) and candidate.strip():
                return _SPACE.sub(" ", candidate).strip()
    return _SPACE.sub(" ", body).strip() or None


def is_web_page(content_type: str | None, head: bytes | str = b"") -> bool:
    """An HTML answer: its content type says so, or its first bytes are an HTML tag."""
    if content_type and content_type.split(";")[0].strip().lower() == "text/html":
        return True
    text = head.decode("utf-8", errors="replace") if isinstance(head, bytes) else head
    start = text.lstrip()[:15].lower()
    return start.startswith(("<!doctype html", "<html"))


def hint(status: int | None, body: str | None, model: str | None, endpoint: str) -> str | None:
    """What to do about a failure, when its status and body say enough."""
    if body and is_web_page(None, body):
        return f"{NOT_THE_SERVER}: check --url and its port"
    if status != 404:
        return None
    message = (server_message(body) or "").lower()
    if "model" in message:
        asked = f" {model!r}" if model else ""
        return (
            f"the server does not serve the model{asked}: pass the name it serves with --model"
            " (GET /v1/models lists them)"
        )
    return f"the server has no {endpoint} route: check --url and the profile's endpoint"


def describe(
    status: int | None,
    error: str | None,
    body: str | None,
    *,
    model: str | None = None,
    endpoint: str = "",
) -> str:
    """One line for the console: the error, the server's message, and the hint if any."""
    line = error or (f"HTTP {status}" if status else "failed")
    message = server_message(body)
    if message and message not in line:
        line += f": {message[:200]}"
    what = hint(status, body, model, endpoint)
    return f"{line} — {what}" if what else line


def no_answer(url: str, after_s: float | None, *, connecting: bool = False) -> str:
    """A timeout's message, said once: what did not answer and after how long (the record's
    kind, ``timeout``, goes in front of it; the socket's own "timed out" adds nothing)."""
    limit = f" within {after_s:g} s" if after_s else " in time"
    return f"could not connect to {url}{limit}" if connecting else f"no answer from {url}{limit}"
