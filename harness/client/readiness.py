"""Waiting for a server like the grader does: poll a path every few seconds, bounded.

It says what it sees on each attempt (connection refused, HTTP 404 on /ping, no
answer, ...) with the time waited and the limit, through ``on_attempt``: the
console hooks print it, so a mistyped port is obvious at once. Two mistakes end
the wait early instead of after the whole ``--ready-timeout`` (docs/timing.md,
"Waiting for the server"):

- nothing listens: the connection is refused for :data:`REFUSED_GIVE_UP_S` in a
  row (or the ready path answers 404 that long: a server without that route). A
  server that is still starting refuses too, so ``wait_for_start`` (the
  ``--wait-for-start`` flag of every kind that waits) keeps waiting instead;
- a base URL with a path (``http://host:8080/v1``, what OpenAI clients take)
  whose ready path answers 404 while the root's answers: the URL is wrong, said
  with the URL to use.

Answers that are certain on the first poll end it at once (client/ready_faults.py):
``https://`` against plain HTTP, a host name that does not resolve, a web page.
A wait that runs out says the timeout it was given.

The grader-like poll of official mode keeps the grader's requests, tries and
interval; only the messages and these early stops are added.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn
from urllib.parse import urlsplit

import aiohttp

from harness.client.failure import ErrorKind, error_kind, is_web_page
from harness.client.ready_faults import fault, seen_of_error, web_page_seen
from harness.client.urllib_client import GraderPoll, poll_once_like_grader
from harness.client.urls import drop_path_hint
from harness.errors import UnreachableError, UsageError

# refused (or 404) this long in a row: nothing listens there (unless the server is starting)
REFUSED_GIVE_UP_S = 10.0
REFUSED = "connection refused"


@dataclass
class ReadyResult:
    url: str
    ready: bool
    elapsed_s: float
    attempts: int
    last: str  # what the last attempt saw: "200", "503", "connection refused", ...


def describe_error(err: BaseException) -> str:
    """What one poll saw, in words; aiohttp's exceptions are classified by failure.error_kind."""
    if isinstance(err, ConnectionRefusedError):
        return REFUSED
    certain = seen_of_error(err)  # https:// to plain HTTP, a name that does not resolve
    if certain is not None:
        return certain
    kind = (
        error_kind(err, answered=False)
        if isinstance(err, aiohttp.ClientError | TimeoutError)
        else None
    )
    if kind is ErrorKind.TIMEOUT:
        return "no answer (timeout)"
    if kind is ErrorKind.CONNECT and isinstance(err, aiohttp.ClientConnectorDNSError):
        return f"host not found ({err.os_error.strerror or err.os_error})"
    if kind is ErrorKind.CONNECT and isinstance(err, aiohttp.ClientConnectorError):
        os_err = err.os_error
        if isinstance(os_err, ConnectionRefusedError) or os_err.errno == errno.ECONNREFUSED:
            return REFUSED
        return f"cannot connect ({os_err.strerror})" if os_err.strerror else "cannot connect"
    return f"{type(err).__name__}: {err}"


def _shown(seen: str) -> str:
    return f"HTTP {seen}" if seen.isdigit() else seen


class Watch:
    """What one readiness wait has seen, told as a line, and its two early stops."""

    def __init__(
        self,
        base_url: str,
        path: str,
        timeout_s: float,
        *,
        wait_for_start: bool = False,
        option: str = "--url",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.path = path
        self.timeout_s = timeout_s
        self.wait_for_start = wait_for_start
        self.option = option
        self._stuck: tuple[str, float] | None = None  # (what, since when)

    def line(self, seen: str, elapsed_s: float) -> str:
        """``connection refused (12 s of 600 s)``: what the console prints."""
        return f"{_shown(seen)} ({elapsed_s:.0f} s of {self.timeout_s:.0f} s)"

    def certain(self, seen: str) -> None:
        """Raise at once on an answer no wait outgrows (client/ready_faults.py): https:// to
        a plain-HTTP server, a host name that does not resolve, a web page."""
        err = fault(
            seen, self.base_url, self.path, option=self.option, wait_for_start=self.wait_for_start
        )
        if err is not None:
            raise err

    def timed_out(self, seen: str, elapsed_s: float, attempts: int, how: str = "") -> NoReturn:
        """The wait ran out: said with the timeout that was asked for."""
        raise UnreachableError(
            f"{self.base_url}{self.path} not ready within {self.timeout_s:g} s "
            f"({attempts}{how} attempts over {elapsed_s:.1f} s, last: {_shown(seen)})",
            hint=f"check {self.option} and its port, or raise --ready-timeout",
        )

    def refused(self, seen: str, elapsed_s: float) -> None:
        """Raise UnreachableError once the connection has been refused (nothing listens),
        or the ready path has answered 404 (a server without it), for
        :data:`REFUSED_GIVE_UP_S` in a row, unless the server is said to be starting."""
        state = "refused" if seen == REFUSED else "404" if _shown(seen) == "HTTP 404" else ""
        if not state:
            self._stuck = None
            return
        if self._stuck is None or self._stuck[0] != state:
            self._stuck = (state, elapsed_s)
        lasted = elapsed_s - self._stuck[1]
        if self.wait_for_start or lasted < REFUSED_GIVE_UP_S:
            return
        wait = (
            "pass --wait-for-start to wait up to --ready-timeout "
            f"({self.timeout_s:.0f} s) while it starts"
        )
        if state == "404":
            raise UnreachableError(
                f"{self.base_url}{self.path} answered HTTP 404 for {lasted:.0f} s: the server "
                f"there has no {self.path} route",
                hint=f"check --url and its port (the profile's ready path is {self.path}), or {wait}",
            )
        parts = urlsplit(self.base_url)
        where = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
        raise UnreachableError(
            f"nothing listens on {where} (connection refused for {lasted:.0f} s)",
            hint=f"start the server, or {wait}",
        )

    async def wrong_prefix(self, seen: str) -> None:
        """A base URL with a path whose ready path answers 404 while the root's answers:
        a UsageError naming the URL to use (one GET of the root's ready path, only then)."""
        if _shown(seen).split(",")[0] != "HTTP 404":
            return
        parts = urlsplit(self.base_url)
        if parts.path in ("", "/"):
            return
        root = f"{parts.scheme}://{parts.netloc}"
        async with aiohttp.ClientSession() as session:
            other = await probe(session, root + self.path, timeout_s=5.0)
        if not other.isdigit() or other == "404":
            return
        raise UsageError(
            f"{self.option} {self.base_url}: GET {self.base_url}{self.path} answers 404, "
            f"{root}{self.path} answers {other}",
            hint=drop_path_hint(self.base_url, self.option),
        )


async def probe(session: aiohttp.ClientSession, url: str, timeout_s: float = 5.0) -> str:
    """One GET; returns the status as text, or what went wrong (an error status with an
    HTML body: :func:`~harness.client.ready_faults.web_page_seen`)."""
    try:
        async with session.get(url, timeout=aiohttp.ClientTimeout(total=timeout_s)) as resp:
            body = await resp.read()
            if resp.status >= 400 and is_web_page(resp.headers.get("Content-Type"), body[:64]):
                return web_page_seen(resp.status)
            return str(resp.status)
    except (aiohttp.ClientError, TimeoutError, OSError) as err:
        return describe_error(err)


async def wait_ready(
    base_url: str,
    path: str = "/ping",
    *,
    interval_s: float = 5.0,
    timeout_s: float = 600.0,
    on_attempt: Callable[[int, float, str], None] | None = None,
    session: aiohttp.ClientSession | None = None,
    like_grader: GraderPoll | None = None,
    wait_for_start: bool = False,
    option: str = "--url",
) -> ReadyResult:
    """Poll ``base_url + path`` until it answers 200; raise UnreachableError after ``timeout_s``
    (or once nothing has listened for :data:`REFUSED_GIVE_UP_S`, unless ``wait_for_start``),
    UsageError for a base URL whose path hides the ready path, and at once the error of an
    answer no wait outgrows (:class:`Watch`). ``option`` names the URL's origin in messages.
    ``on_attempt(attempt, elapsed_s, line)`` hears each poll that is not ready, as a line.

    ``like_grader``: poll exactly as the Efficient Qwen grader does instead (urllib GETs,
    its per-try timeout, at most its number of tries; any answer urllib does not raise on
    is ready), so official mode sends no request the grader would not."""
    watch = Watch(base_url, like_grader.path if like_grader else path, timeout_s,
                  wait_for_start=wait_for_start, option=option)  # fmt: skip
    if like_grader is not None:
        return await _wait_like_grader(
            base_url, like_grader, timeout_s=timeout_s, on_attempt=on_attempt, watch=watch
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
            if last == "200":
                return ReadyResult(url, True, elapsed, attempts, last)
            if on_attempt:
                on_attempt(attempts, elapsed, watch.line(last, elapsed))
            watch.refused(last, elapsed)
            await watch.wrong_prefix(last)
            watch.certain(last)
            if elapsed >= timeout_s:
                watch.timed_out(last, elapsed, attempts)
            await asyncio.sleep(min(interval_s, timeout_s - elapsed))
    finally:
        if own:
            await sess.close()


async def _wait_like_grader(
    base_url: str,
    poll: GraderPoll,
    *,
    timeout_s: float,
    on_attempt: Callable[[int, float, str], None] | None,
    watch: Watch,
) -> ReadyResult:
    url = base_url.rstrip("/") + poll.path
    start = time.monotonic()
    last = ""
    for attempt in range(1, poll.tries + 1):
        last = await asyncio.to_thread(poll_once_like_grader, url, poll.timeout_s)
        elapsed = time.monotonic() - start
        if last == "ready":
            return ReadyResult(url, True, elapsed, attempt, last)
        if on_attempt:
            on_attempt(attempt, elapsed, watch.line(last, elapsed))
        watch.refused(last, elapsed)
        await watch.wrong_prefix(last)
        watch.certain(last)
        if attempt == poll.tries or elapsed >= timeout_s:
            break
        await asyncio.sleep(min(poll.interval_s, timeout_s - elapsed))
    watch.timed_out(last, time.monotonic() - start, attempt, " grader-style")


async def listening(
    base_url: str,
    timeout_s: float = 10.0,
    *,
    wait_s: float = 0.0,
    interval_s: float = 5.0,
    on_attempt: Callable[[int, float, str], None] | None = None,
) -> ReadyResult:
    """Raise UnreachableError unless something accepts a TCP connection at ``base_url``'s
    host and port. It sends no byte: no HTTP request reaches the server (where a
    measurement must send only the grader's requests, a wrong port still fails fast).
    ``wait_s`` > 0 (``--wait-for-start``): try again every ``interval_s`` for that long."""
    parts = urlsplit(base_url)
    host = parts.hostname or "127.0.0.1"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    start = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
            break
        except (OSError, TimeoutError) as err:
            elapsed = time.monotonic() - start
            if elapsed + interval_s > wait_s:
                _not_listening(host, port, err, elapsed if wait_s > 0 else None)
            if on_attempt:
                on_attempt(
                    attempt, elapsed, f"{describe_error(err)} ({elapsed:.0f} s of {wait_s:.0f} s)"
                )
            await asyncio.sleep(interval_s)
    writer.close()
    with contextlib.suppress(OSError):  # closed by the peer first: nothing to tidy
        await writer.wait_closed()
    return ReadyResult(base_url, True, time.monotonic() - start, attempt, "listening")


def _not_listening(host: str, port: int, err: BaseException, waited_s: float | None) -> NoReturn:
    if waited_s is not None:  # --wait-for-start was given: the wait itself ran out
        raise UnreachableError(
            f"nothing accepts connections at {host}:{port} after {waited_s:.0f} s "
            f"({describe_error(err)})",
            hint="check the URL and port, or raise --ready-timeout",
        ) from None
    raise UnreachableError(
        f"nothing accepts connections at {host}:{port} ({describe_error(err)})",
        hint="check the URL and port; start the server first (harness check waits for it), "
        "or pass --wait-for-start to wait up to --ready-timeout",
    ) from None


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
