"""Waiting for a server like the grader does: poll a path every few seconds, bounded.

It says what it sees on each attempt (refused, 503, timeout, ...) so a mistyped
port is obvious, and returns how long readiness took.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp

from harness.client.urllib_client import GraderPoll, poll_once_like_grader
from harness.errors import UnreachableError


@dataclass
class ReadyResult:
    url: str
    ready: bool
    elapsed_s: float
    attempts: int
    last: str  # what the last attempt saw: "200", "503", "connection refused", ...


def _describe(err: BaseException) -> str:
    if isinstance(err, aiohttp.ClientConnectorError):
        os_err = err.os_error
        return (
            f"connection refused ({os_err.strerror})"
            if os_err and os_err.strerror
            else "connection refused"
        )
    if isinstance(err, TimeoutError | asyncio.TimeoutError):
        return "no answer (timeout)"
    if isinstance(err, ConnectionRefusedError):
        return "connection refused"
    return f"{type(err).__name__}: {err}"


async def probe(session: aiohttp.ClientSession, url: str, timeout_s: float = 5.0) -> str:
    """One GET; returns the status as text, or what went wrong."""
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            await resp.read()
            return str(resp.status)
    except (aiohttp.ClientError, TimeoutError, OSError) as err:
        return _describe(err)


async def wait_ready(
    base_url: str,
    path: str = "/ping",
    *,
    interval_s: float = 5.0,
    timeout_s: float = 600.0,
    on_attempt: Callable[[int, float, str], None] | None = None,
    session: aiohttp.ClientSession | None = None,
    like_grader: GraderPoll | None = None,
) -> ReadyResult:
    """Poll ``base_url + path`` until it answers 200; raise UnreachableError after ``timeout_s``.

    ``like_grader``: poll exactly as the Efficient Qwen grader does instead (urllib GETs,
    its per-try timeout, at most its number of tries; any answer urllib does not raise on
    is ready), so official mode sends no request the grader would not."""
    if like_grader is not None:
        return await _wait_like_grader(
            base_url, like_grader, timeout_s=timeout_s, on_attempt=on_attempt
        )
    url = base_url.rstrip("/") + path
    own = session is None
    sess = session or aiohttp.ClientSession()
    start = time.monotonic()
    attempts = 0
    last = ""
    try:
        while True:
            attempts += 1
            last = await probe(sess, url, timeout_s=min(5.0, max(timeout_s, 0.1)))
            elapsed = time.monotonic() - start
            if on_attempt:
                on_attempt(attempts, elapsed, last)
            if last == "200":
                return ReadyResult(url, True, elapsed, attempts, last)
            if elapsed + interval_s > timeout_s:
                raise UnreachableError(
                    f"{url} not ready after {elapsed:.0f} s ({attempts} attempts, last: {last})",
                    hint="check the URL and port, or raise --ready-timeout",
                )
            await asyncio.sleep(interval_s)
    finally:
        if own:
            await sess.close()


async def _wait_like_grader(
    base_url: str,
    poll: GraderPoll,
    *,
    timeout_s: float,
    on_attempt: Callable[[int, float, str], None] | None,
) -> ReadyResult:
    url = base_url.rstrip("/") + poll.path
    start = time.monotonic()
    last = ""
    for attempt in range(1, poll.tries + 1):
        last = await asyncio.to_thread(poll_once_like_grader, url, poll.timeout_s)
        elapsed = time.monotonic() - start
        if on_attempt:
            on_attempt(attempt, elapsed, last)
        if last == "ready":
            return ReadyResult(url, True, elapsed, attempt, last)
        if attempt == poll.tries or elapsed + poll.interval_s > timeout_s:
            break
        await asyncio.sleep(poll.interval_s)
    raise UnreachableError(
        f"{url} not ready after {time.monotonic() - start:.0f} s "
        f"({attempt} grader-style attempts, last: {last})",
        hint="check the URL and port, or raise --ready-timeout",
    )


async def listening(base_url: str, timeout_s: float = 10.0) -> None:
    """Raise UnreachableError unless something accepts a TCP connection at ``base_url``'s
    host and port. It sends no byte: no HTTP request reaches the server (where a
    measurement must send only the grader's requests, a wrong port still fails fast)."""
    parts = urlsplit(base_url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except (OSError, TimeoutError) as err:
        raise UnreachableError(
            f"nothing accepts connections at {host}:{port} ({_describe(err)})",
            hint="check the URL and port; start the server first (harness check waits for it)",
        ) from None
    writer.close()
    with contextlib.suppress(OSError):  # closed by the peer first: nothing to tidy
        await writer.wait_closed()


async def server_models(session: aiohttp.ClientSession, base_url: str) -> list[str]:
    """Model ids from ``/v1/models`` (empty when the route is missing or malformed)."""
    try:
        async with session.get(
            base_url.rstrip("/") + "/v1/models", timeout=aiohttp.ClientTimeout(total=10)
        ) as resp:
            if resp.status != 200:
                return []
            data = await resp.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError):
        return []
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return []
    return [str(m["id"]) for m in items if isinstance(m, dict) and "id" in m]
