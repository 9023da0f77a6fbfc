"""Sending one request and recording it: the only place harness talks HTTP to a model server.

The body is serialised before the clock starts; reads are timestamped as they
arrive and parsed afterwards (streamed reads are kept raw until the stream ends,
so parsing never delays the next timestamp). Every failure becomes a
:class:`RequestError` on the record; nothing is raised out of a run except
cancellation.

Compression: the session sets ``auto_decompress=False`` (raw reads keep their
arrival times), so it asks for ``Accept-Encoding: identity``; a server that
compresses anyway is decompressed here, after the timestamps (no mode fails on
a compressing server).

A stale pooled connection: a server may close a keep-alive connection that it said it would
keep (llama.cpp's ``llama-server`` closes it after every streamed answer, its headers still
saying ``Keep-Alive: timeout=5, max=100``). The next request the pool puts on it fails
before a byte comes back (``ServerDisconnectedError``). Browsers and HTTP libraries send
such a request again on a new connection (RFC 9112 §9.3.1: the server closed the
connection without answering); so does :func:`send_request`, once, and only when the
connection was a reused one and no status line came back (``RequestRecord.resent``).
aiohttp does this itself for idempotent methods only, never for a POST.
"""

from __future__ import annotations

import asyncio
import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import aiohttp

from harness.client.failure import error_kind, no_answer
from harness.client.records import ErrorKind, RequestError, RequestRecord, StreamEvent
from harness.client.sse import SSESplitter

READ_BUFSIZE = 1 << 20  # large read buffer: fewer, bigger reads under load
EXCERPT = 300


@dataclass(frozen=True)
class HttpOptions:
    timeout_s: float = 600.0  # total per request
    connect_timeout_s: float = 10.0
    read_idle_timeout_s: float | None = None  # streamed: max gap between reads
    new_connection_per_request: bool = (
        False  # the official grader opens a new TCP connection each time
    )
    max_connections: int = 0  # 0 = unlimited
    headers: tuple[tuple[str, str], ...] = ()  # added to (or replacing) the session's defaults


def make_session(opts: HttpOptions) -> aiohttp.ClientSession:
    """One session per run. ``force_close`` gives a fresh TCP connection per request."""
    connector = aiohttp.TCPConnector(
        limit=opts.max_connections,
        force_close=opts.new_connection_per_request,
        enable_cleanup_closed=False,
        ttl_dns_cache=None,
    )
    timeout = aiohttp.ClientTimeout(
        total=opts.timeout_s,
        sock_connect=opts.connect_timeout_s,
        sock_read=opts.read_idle_timeout_s,
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        trace_configs=[_reuse_trace()],
        read_bufsize=READ_BUFSIZE,
        auto_decompress=False,
        # aiohttp's default asks for gzip/deflate, which it would then not undo
        headers={
            "Content-Type": "application/json",
            "Accept-Encoding": "identity",
            **dict(opts.headers),
        },
    )


def _reuse_trace() -> aiohttp.TraceConfig:
    """Marks a request's ``trace_request_ctx`` (a dict) when the pool handed it a reused
    connection rather than a new one."""

    async def reused(_s: aiohttp.ClientSession, ctx: Any, _p: Any) -> None:
        if isinstance(ctx.trace_request_ctx, dict):
            ctx.trace_request_ctx["reused"] = True

    trace = aiohttp.TraceConfig()
    trace.on_connection_reuseconn.append(reused)
    return trace


def _stale(err: BaseException, rec: RequestRecord, attempt: dict[str, bool]) -> bool:
    """A reused connection the server had closed: nothing came back, the request is resent."""
    closed = isinstance(err, aiohttp.ServerDisconnectedError) or (
        isinstance(err, aiohttp.ClientOSError) and not isinstance(err, aiohttp.ClientConnectorError)
    )
    return closed and rec.status is None and attempt.get("reused", False)


def encode_body(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


async def send_request(
    session: aiohttp.ClientSession,
    url: str,
    body: dict[str, Any] | bytes,
    *,
    endpoint: str = "",
    stream: bool | None = None,
    intended_ns: int | None = None,
    parse: bool = True,
) -> RequestRecord:
    """POST ``body`` to ``url`` and return its record. Streams when ``body['stream']`` is true.

    ``parse=False`` leaves a streamed response's raw reads on the record; call
    :func:`parse_stream` later (the benchmark does, so parsing never competes
    with timestamping).
    """
    if isinstance(body, bytes):
        data = body
        is_stream = bool(stream)
    else:
        data = encode_body(body)
        is_stream = bool(body.get("stream")) if stream is None else stream
    rec = RequestRecord(endpoint=endpoint or url, stream=is_stream, intended_ns=intended_ns)
    rec.send_ns = time.perf_counter_ns()
    # the clock keeps running through a resend: a user's client pays for it too
    while True:
        attempt: dict[str, bool] = {}
        try:
            await _exchange(session, url, data, rec, attempt)
        except asyncio.CancelledError:
            rec.error = RequestError(ErrorKind.CANCELLED, "cancelled")
            raise
        except (aiohttp.ClientError, TimeoutError) as err:
            if not rec.resent and _stale(err, rec, attempt):
                rec.resent = True
                continue
            kind = error_kind(err, answered=rec.status is not None)
            rec.error = _request_error(kind, err, session, url)
        break
    if rec.stream and parse and rec.error is None:
        parse_stream(rec)
    return rec


async def _exchange(
    session: aiohttp.ClientSession,
    url: str,
    data: bytes,
    rec: RequestRecord,
    attempt: dict[str, bool],
) -> None:
    """One POST and its answer, onto ``rec``; aiohttp's and the clock's errors propagate."""
    async with session.post(url, data=data, trace_request_ctx=attempt) as resp:
        rec.headers_ns = time.perf_counter_ns()
        rec.status = resp.status
        rec.content_encoding = resp.headers.get("Content-Encoding", "").strip().lower()
        if resp.status >= 400:
            raw = await resp.read()
            rec.end_ns = time.perf_counter_ns()
            rec.error = RequestError(
                ErrorKind.HTTP_STATUS,
                f"HTTP {resp.status} from {rec.endpoint}",
                status=resp.status,
                body_excerpt=raw[:EXCERPT].decode("utf-8", errors="replace"),
            )
            return
        if rec.stream:
            await _read_stream(resp, rec)
        else:
            raw = await resp.read()
            rec.end_ns = time.perf_counter_ns()
            rec.first_byte_ns = rec.end_ns
            rec.n_bytes = len(raw)
            _parse_json_body(_decoded(raw, rec), rec)
            rec.parsed_ns = time.perf_counter_ns()


def _request_error(
    kind: ErrorKind, err: BaseException, session: aiohttp.ClientSession, url: str
) -> RequestError:
    """The failure of ``kind`` (failure.error_kind) in words: which limit fired, where the
    connection failed, or the exception itself."""
    if kind is ErrorKind.TIMEOUT:
        return RequestError(kind, _timeout_message(session, url, err))
    if isinstance(err, aiohttp.ClientResponseError):
        return RequestError(kind, str(err), status=err.status)
    if isinstance(err, aiohttp.ClientConnectorError):
        return RequestError(kind, f"cannot connect to {url}: {err.os_error or err}")
    if isinstance(err, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
        return RequestError(kind, f"server closed the connection: {err}")
    return RequestError(kind, f"{type(err).__name__}: {err}")


def _timeout_message(session: aiohttp.ClientSession, url: str, err: BaseException) -> str:
    """Which of the session's limits fired, said once with its length (failure.no_answer)."""
    limits = session.timeout
    if isinstance(err, aiohttp.ConnectionTimeoutError):
        return no_answer(url, limits.sock_connect or limits.connect, connecting=True)
    if isinstance(err, aiohttp.SocketTimeoutError):
        return no_answer(url, limits.sock_read) + " (between reads)"
    return no_answer(url, limits.total)


async def _read_stream(resp: aiohttp.ClientResponse, rec: RequestRecord) -> None:
    raw = rec.raw
    clock = time.perf_counter_ns
    async for chunk in resp.content.iter_any():
        raw.append((clock(), chunk))
    rec.end_ns = clock()
    if raw:
        rec.first_byte_ns = raw[0][0]


def _decompressor(encoding: str) -> zlib._Decompress | None:
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(wbits=zlib.MAX_WBITS | 16)
    if encoding == "deflate":
        return zlib.decompressobj()
    return None  # identity, or an encoding we cannot undo (left for the JSON error to show)


def _decoded(raw: bytes, rec: RequestRecord) -> bytes:
    """``raw`` with the response's Content-Encoding undone (the session never does it)."""
    dec = _decompressor(rec.content_encoding)
    if dec is None or not raw:
        return raw
    try:
        return dec.decompress(raw) + dec.flush()
    except zlib.error:
        return raw


def _choice_text(choice: dict[str, Any]) -> tuple[str, str]:
    """(content, reasoning) of a choice: completions ``text``, chat ``delta``/``message``."""
    if "text" in choice and isinstance(choice["text"], str):
        return choice["text"], ""
    msg = choice.get("delta") or choice.get("message") or {}
    if not isinstance(msg, dict):
        return "", ""
    content = msg.get("content") or ""
    reasoning = msg.get("reasoning_content") or msg.get("reasoning") or ""
    return (content if isinstance(content, str) else ""), (
        reasoning if isinstance(reasoning, str) else ""
    )


def _take_usage(usage: Any, rec: RequestRecord) -> None:
    if isinstance(usage, dict):
        for key, attr in (
            ("prompt_tokens", "usage_prompt_tokens"),
            ("completion_tokens", "usage_completion_tokens"),
            ("total_tokens", "usage_total_tokens"),
        ):
            value = usage.get(key)
            if isinstance(value, int):
                setattr(rec, attr, value)


def _parse_json_body(raw: bytes, rec: RequestRecord) -> None:
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        rec.error = RequestError(
            ErrorKind.MALFORMED_JSON,
            f"response is not JSON: {err}",
            status=rec.status,
            body_excerpt=raw[:EXCERPT].decode("utf-8", errors="replace"),
        )
        return
    if not isinstance(obj, dict):
        rec.error = RequestError(ErrorKind.MALFORMED_JSON, "response JSON is not an object")
        return
    rec.response = obj
    _take_usage(obj.get("usage"), rec)
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        rec.error = RequestError(
            ErrorKind.EMPTY_CHOICES,
            "response has no choices",
            status=rec.status,
            body_excerpt=raw[:EXCERPT].decode("utf-8", errors="replace"),
        )
        return
    rec.text, rec.reasoning = _choice_text(choices[0])
    reason = choices[0].get("finish_reason")
    rec.finish_reason = reason if isinstance(reason, str) else None
    if rec.text or rec.reasoning:
        rec.first_token_ns = rec.last_token_ns = rec.end_ns


def stream_payloads(rec: RequestRecord) -> Iterator[tuple[int, str]]:
    """The ``data:`` payloads of a record's raw streamed reads, in order, each with the time
    of the read that completed it (the response's Content-Encoding undone; the events a
    stream left without a final blank line come last, at its end)."""
    splitter = SSESplitter()
    dec = _decompressor(rec.content_encoding)
    for t_ns, raw_chunk in rec.raw:
        try:
            chunk = dec.decompress(raw_chunk) if dec else raw_chunk
        except zlib.error:
            chunk = raw_chunk
        for data in splitter.feed(chunk):
            yield t_ns, data
    for data in splitter.flush():
        yield rec.end_ns or 0, data


@dataclass(frozen=True)
class StreamChunk:
    """One streamed payload, read: the end marker, an error, or an event's usage and its
    first choice (what parse_stream keeps, and harness/audit/probes/stream.py's facts)."""

    done: bool = False  # ``[DONE]``
    error: RequestError | None = None
    usage: dict[str, Any] | None = None
    choice: bool = False  # the event carries a first choice (an object)
    content: str = ""
    reasoning: str = ""
    finish_reason: str | None = None
    ends: bool = False  # the choice's finish_reason is set, whatever its value


def read_chunk(data: str, status: int | None = None) -> StreamChunk:
    """One ``data:`` payload, read as the client reads every stream (``status``: the
    response's, named by an error event's error)."""
    if data.strip() == "[DONE]":
        return StreamChunk(done=True)
    try:
        obj = json.loads(data)
    except json.JSONDecodeError as err:
        why = f"event is not JSON: {err}"
        return StreamChunk(
            error=RequestError(ErrorKind.MALFORMED_SSE, why, body_excerpt=data[:EXCERPT])
        )
    if not isinstance(obj, dict):
        return StreamChunk(
            error=RequestError(ErrorKind.MALFORMED_SSE, "event JSON is not an object")
        )
    if "error" in obj and "choices" not in obj:
        why = f"error event: {str(obj['error'])[:EXCERPT]}"
        return StreamChunk(error=RequestError(ErrorKind.HTTP_STATUS, why, status=status))
    usage = obj.get("usage")
    usage = usage if isinstance(usage, dict) else None
    choices = obj.get("choices") or []
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return StreamChunk(usage=usage)
    content, reasoning = _choice_text(choices[0])
    reason = choices[0].get("finish_reason")
    return StreamChunk(
        usage=usage,
        choice=True,
        content=content,
        reasoning=reasoning,
        finish_reason=reason if isinstance(reason, str) else None,
        ends=reason is not None,
    )


def parse_stream(rec: RequestRecord) -> None:
    """Turn a record's raw streamed reads into events, text, timings and usage."""
    texts: list[str] = []
    reasons: list[str] = []
    saw_done = False
    for t_ns, data in stream_payloads(rec):
        saw_done = _take_event(data, t_ns, rec, texts, reasons) or saw_done
        if rec.error:
            break
    rec.text = "".join(texts)
    rec.reasoning = "".join(reasons)
    rec.n_bytes = sum(len(c) for _, c in rec.raw)
    rec.raw = []
    if rec.error is None and not saw_done:
        rec.error = RequestError(ErrorKind.MALFORMED_SSE, "stream ended without data: [DONE]")
    elif rec.error is None and not rec.events and rec.finish_reason is None:
        rec.error = RequestError(ErrorKind.EMPTY_CHOICES, "stream carried no choices")


def _take_event(
    data: str, t_ns: int, rec: RequestRecord, texts: list[str], reasons: list[str]
) -> bool:
    c = read_chunk(data, rec.status)
    if c.done:
        return True
    if c.error is not None:
        rec.error = c.error
        return False
    _take_usage(c.usage, rec)
    if not c.choice:
        return False
    if c.finish_reason is not None:
        rec.finish_reason = c.finish_reason
    if c.content or c.reasoning:
        rec.events.append(StreamEvent(t_ns=t_ns, text=c.content, reasoning=c.reasoning))
        if rec.first_token_ns is None:
            rec.first_token_ns = t_ns
        if c.content and rec.first_content_ns is None:
            rec.first_content_ns = t_ns
        rec.last_token_ns = t_ns
        texts.append(c.content)
        reasons.append(c.reasoning)
    return False


async def get_json(
    session: aiohttp.ClientSession, url: str, *, timeout_s: float = 10.0
) -> tuple[int | None, Any, str]:
    """GET a small JSON resource. Returns (status, parsed-or-None, error text)."""
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            raw = await resp.read()
            try:
                return resp.status, json.loads(raw) if raw else None, ""
            except (json.JSONDecodeError, UnicodeDecodeError):
                return resp.status, None, raw[:EXCERPT].decode("utf-8", errors="replace")
    except (aiohttp.ClientError, TimeoutError, OSError) as err:
        return None, None, f"{type(err).__name__}: {err}"
