"""A round-trip probe: how long the way to the server and back takes, outside every timed window.

One probe opens a new connection (timed: TCP, and TLS for https), sends ``GET path``
(the profile's ready path, the cheapest request a server under test answers), reads
the answer (timed: request sent → answer read), then sends the same GET again on
the kept-alive connection (timed the same way). So:

- ``connect_ms`` is the connection setup a new-connection request pays before it
  can send (one round trip on a network, two or three with TLS);
- ``first_ms`` is what the first request on a new connection pays beyond the
  server's own time (one round trip on a network; a proxy that holds the first
  bytes for the handshake shows it here instead of in ``connect_ms``);
- ``reuse_ms`` is one plain round trip (plus the server's time for a ping).

It uses ``http.client`` (HTTP/1.1, keep-alive), blocking: callers run it in a
worker thread, between buckets. It never raises: a failure is ``error``.
"""

from __future__ import annotations

import http.client
import time
import urllib.parse
from dataclasses import dataclass


@dataclass
class ProbeResult:
    connect_ms: float | None = None
    first_ms: float | None = None
    reuse_ms: float | None = None
    peer: str | None = None
    error: str | None = None


def _ms(start: int) -> float:
    return (time.perf_counter_ns() - start) / 1e6


def _get(conn: http.client.HTTPConnection, path: str, host: str) -> float:
    start = time.perf_counter_ns()
    conn.request("GET", path, headers={"Host": host})
    resp = conn.getresponse()
    resp.read()
    return _ms(start)


def probe_once(base_url: str, path: str, *, timeout_s: float = 10.0) -> ProbeResult:
    """One probe of ``base_url`` (``http://host:port``) with ``GET path``; never raises."""
    parts = urllib.parse.urlsplit(base_url)
    host = parts.hostname or "127.0.0.1"
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    conn: http.client.HTTPConnection = (
        http.client.HTTPSConnection(host, port, timeout=timeout_s)
        if https
        else http.client.HTTPConnection(host, port, timeout=timeout_s)
    )
    out = ProbeResult()
    try:
        start = time.perf_counter_ns()
        conn.connect()
        out.connect_ms = _ms(start)
        try:
            out.peer = str(conn.sock.getpeername()[0])
        except (OSError, AttributeError, IndexError):
            out.peer = None
        netloc = parts.netloc.rsplit("@", 1)[-1]
        out.first_ms = _get(conn, path, netloc)
        out.reuse_ms = _get(conn, path, netloc)
    except (OSError, http.client.HTTPException) as err:  # TimeoutError is an OSError
        out.error = f"{type(err).__name__}: {err}"[:200]
    finally:
        conn.close()
    return out
