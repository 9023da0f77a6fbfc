"""Passive connection tracing for the grader's urllib client: when the connection opened.

Official latency sends through stdlib ``urllib`` exactly as the grader does, a new
TCP connection per request (harness/client/urllib_client.py). This module only
*watches* that path: its opener is urllib's default one (``build_opener()``, the
same handlers, headers and proxies) whose HTTP and HTTPS handlers make their
connection through a subclass of ``http.client``'s that stamps, with
``time.perf_counter_ns()``:

- the TCP connect (start, end), and for HTTPS the whole connect with TLS;
- when the request's last bytes were handed to the socket;
- the peer address and the socket's MSS (``TCP_MAXSEG``), read from the kernel.

Nothing is sent or received that urllib would not send or receive: the wire is
byte for byte the grader's (tests/wire/test_latency_wire.py). The stamps go to the
calling thread's current :class:`ConnTrace` (official mode sends one request at a
time, each from one worker thread), so one opener serves every request and nothing
is built inside the timed window.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass
class ConnTrace:
    """What the connection of one request did, in ``perf_counter_ns`` stamps."""

    connect_start_ns: int | None = None
    tcp_end_ns: int | None = None  # the TCP handshake done (connect() returned)
    connect_end_ns: int | None = None  # TCP, and TLS for https, done
    sent_ns: int | None = None  # the request's last bytes handed to the socket
    peer: str | None = None  # the resolved peer address the connection went to
    mss: int | None = None  # the socket's TCP maximum segment size (bytes)
    request_bytes: int = 0  # bytes written: request line, headers and body

    @property
    def connect_ms(self) -> float | None:
        """Connection setup (TCP handshake, and TLS where there is one), in ms."""
        if self.connect_start_ns is None or self.connect_end_ns is None:
            return None
        return (self.connect_end_ns - self.connect_start_ns) / 1e6

    tls: bool = False  # an https connection (its connect includes the TLS handshake)

    @property
    def tls_ms(self) -> float | None:
        """The TLS part of :attr:`connect_ms` (None for plain HTTP)."""
        if not self.tls or self.tcp_end_ns is None or self.connect_end_ns is None:
            return None
        return (self.connect_end_ns - self.tcp_end_ns) / 1e6


_current = threading.local()


def _trace() -> ConnTrace | None:
    got: ConnTrace | None = getattr(_current, "trace", None)
    return got


@contextmanager
def tracing(trace: ConnTrace) -> Iterator[ConnTrace]:
    """Stamps of the traced opener's connections made by this thread go to ``trace``."""
    previous = _trace()
    _current.trace = trace
    try:
        yield trace
    finally:
        _current.trace = previous


def _stamp_peer(trace: ConnTrace, sock: Any) -> None:
    try:
        trace.peer = str(sock.getpeername()[0])
        trace.mss = int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG))
    except (OSError, AttributeError, IndexError):
        pass  # a socket that cannot say leaves the fields empty: the report says "unknown"


class _Traced:
    """Mixed into ``http.client`` connections: stamps connect, TLS and the last send."""

    sock: Any

    def _timed_create(self, *args: Any, **kwargs: Any) -> socket.socket:
        sock = socket.create_connection(*args, **kwargs)
        trace = _trace()
        if trace is not None:
            trace.tcp_end_ns = time.perf_counter_ns()
            _stamp_peer(trace, sock)
        return sock

    def connect(self) -> None:
        trace = _trace()
        if trace is not None:
            trace.connect_start_ns = time.perf_counter_ns()
            trace.tls = isinstance(self, http.client.HTTPSConnection)
        super().connect()  # type: ignore[misc]
        if trace is not None:
            trace.connect_end_ns = time.perf_counter_ns()

    def send(self, data: Any) -> None:
        super().send(data)  # type: ignore[misc]
        trace = _trace()
        if trace is not None:
            trace.sent_ns = time.perf_counter_ns()
            if isinstance(data, bytes | bytearray | memoryview):  # not a file-like body
                trace.request_bytes += len(data)


class TracedHTTPConnection(_Traced, http.client.HTTPConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = self._timed_create


class TracedHTTPSConnection(_Traced, http.client.HTTPSConnection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = self._timed_create


class TracedHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(TracedHTTPConnection, req)


class TracedHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(TracedHTTPSConnection, req, context=self._context)  # type: ignore[attr-defined]


# urllib's default opener (what urlopen builds) with the two traced handlers in place of
# the plain ones: the same handler chain, the same User-Agent, the same proxies.
_OPENER = urllib.request.build_opener(TracedHTTPHandler, TracedHTTPSHandler)


def traced_urlopen(req: urllib.request.Request, *, timeout: float) -> Any:
    """``urllib.request.urlopen(req, timeout=timeout)``, its connection stamped into the
    thread's current :class:`ConnTrace` (see :func:`tracing`)."""
    return _OPENER.open(req, timeout=timeout)
