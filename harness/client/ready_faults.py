"""Answers a readiness wait can never outgrow, each told at once with what to do.

A wait polls until the server is ready or ``--ready-timeout`` runs out; a server that
is still starting refuses connections or answers 503, so those are waited for
(client/readiness.py). These answers are certain on the first poll (docs/timing.md,
"Waiting for the server"):

- ``https://`` against a plain-HTTP server: the TLS handshake gets plain HTTP back
  ("wrong version number"); the URL's scheme is wrong, not the server's state;
- a host name that does not resolve (the resolver says the name is unknown, not that
  it could not ask): a typo;
- a web page (``text/html``) on the ready path with an error status: another kind of
  server listens there (a dev server, a dashboard, a proxy's error page), not the
  model server.

``seen_of_error`` turns an exception of aiohttp or urllib into the words a poll shows
(client/failure.py's ``is_web_page`` tells an HTML answer); ``fault`` turns those
words into the error that ends the wait, or None; ``fault_of_error`` does both for one
failed GET (the tune's own urllib poll calls it). (A base URL with a path, ``/v1``, is client/urls.py's
``server_base_url``, checked before anything is polled.)
"""

from __future__ import annotations

import socket
import ssl
import urllib.error
from urllib.parse import urlsplit, urlunsplit

import aiohttp

from harness.client.failure import NOT_THE_SERVER, is_web_page
from harness.errors import HarnessError, UnreachableError, UsageError

TLS_TO_PLAIN = "TLS handshake answered in plain HTTP (wrong version number)"
HOST_UNKNOWN = "host not found"
WEB_PAGE = "a web page (text/html)"


def _cause(err: BaseException) -> BaseException:
    """The OS-level error inside aiohttp's or urllib's wrapper."""
    if isinstance(err, aiohttp.ClientConnectorError):
        return err.os_error
    if isinstance(err, urllib.error.URLError) and isinstance(err.reason, BaseException):
        return err.reason
    return err


def seen_of_error(err: BaseException) -> str | None:
    """The words of an error no wait outgrows (:data:`TLS_TO_PLAIN`, :data:`HOST_UNKNOWN`
    with the resolver's words), else None."""
    cause = _cause(err)
    if isinstance(cause, ssl.SSLError) and (
        getattr(cause, "reason", None) == "WRONG_VERSION_NUMBER"
        or "wrong version number" in str(cause)
    ):
        return TLS_TO_PLAIN
    if isinstance(cause, socket.gaierror) and cause.errno == socket.EAI_NONAME:
        return f"{HOST_UNKNOWN} ({cause.strerror})"
    return None


def web_page_seen(status: int) -> str:
    """What a poll shows for an HTML answer with an error status."""
    return f"HTTP {status}, {WEB_PAGE}"


def fault(
    seen: str, base_url: str, path: str, *, option: str = "--url", wait_for_start: bool = False
) -> HarnessError | None:
    """The error that ends a wait at once on ``seen`` (what one poll saw), else None.
    ``option`` names where the URL came from (``--url``; a tune's ``serve.url``).
    A name that does not resolve yet may be a container's that is still starting:
    ``wait_for_start`` waits for it."""
    base = base_url.rstrip("/")
    parts = urlsplit(base)
    if seen == TLS_TO_PLAIN:
        plain = urlunsplit(("http", parts.netloc, parts.path, "", ""))
        return UsageError(
            f"{option} {base}: the server there speaks plain HTTP, not HTTPS "
            "(TLS handshake: wrong version number)",
            hint=f"use http://: {option} {plain}",
        )
    if seen.startswith(HOST_UNKNOWN) and not wait_for_start:
        return UnreachableError(
            f"{option} {base}: {seen.replace(HOST_UNKNOWN, f'host {parts.hostname!r} not found')}",
            hint=f"check the host name in {option} (127.0.0.1 for a server on this machine)",
        )
    if seen.endswith(WEB_PAGE):
        return UnreachableError(
            f"GET {base}{path} answers {seen.removesuffix(', ' + WEB_PAGE)} with {WEB_PAGE}: "
            f"{NOT_THE_SERVER}",
            hint=f"check {option} and its port",
        )
    return None


def fault_of_error(
    err: BaseException, base_url: str, path: str, *, option: str = "--url"
) -> HarnessError | None:
    """:func:`fault` of one failed GET of ``base_url + path`` made with urllib or aiohttp
    (an HTTP error status carrying a web page included): for a poll of one's own, such
    as the tune's, which ends on it instead of waiting out its timeout."""
    if isinstance(err, urllib.error.HTTPError):
        kind = err.headers.get("Content-Type") if err.headers else None
        seen = web_page_seen(err.code) if is_web_page(kind) else f"HTTP {err.code}"
    else:
        seen = seen_of_error(err) or ""
    return fault(seen, base_url, path, option=option)
