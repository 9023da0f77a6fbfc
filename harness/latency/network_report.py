"""The network records of ``latency.json``: per-request connection stamps, round-trip probes,
and the ``network`` section (loopback or network, its share of each median, the
localhost-equivalent ESTIMATE and the server's own figure). docs/timing.md, "Network".

Models only (the report imports them); the arithmetic is harness/latency/network.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from harness.client.trace import ConnTrace

NetworkLabel = Literal["loopback", "network", "unknown"]


class RowConn(BaseModel):
    """One official request's connection, traced passively (harness/client/trace.py)."""

    connect_ms: float | None = None  # TCP handshake (+ TLS): the request's own setup
    tls_ms: float | None = None  # the TLS part of connect_ms (None: plain HTTP)
    sent_ms: float | None = None  # from the request's send to its last byte handed over
    peer: str | None = None  # the resolved address it went to
    mss: int | None = None  # the socket's TCP maximum segment size
    request_bytes: int = 0  # request line, headers and body


def row_conn(trace: ConnTrace | None, send_ns: int) -> RowConn | None:
    """A request's :class:`ConnTrace` as the row keeps it (times from the request's send)."""
    if trace is None or trace.connect_start_ns is None:
        return None
    return RowConn(
        connect_ms=trace.connect_ms,
        tls_ms=trace.tls_ms,
        sent_ms=None if trace.sent_ns is None else (trace.sent_ns - send_ns) / 1e6,
        peer=trace.peer,
        mss=trace.mss,
        request_bytes=trace.request_bytes,
    )


class RttProbe(BaseModel):
    """One round-trip probe: a cheap GET of the ready path on a new connection, then again
    on the same (kept-alive) connection. Sent only before, between and after buckets."""

    at: str  # "before official short", "after official short", …
    path: str
    connect_ms: float | None = None  # TCP (+ TLS) setup of the probe's connection
    first_ms: float | None = None  # request sent → answer read, first request on it
    reuse_ms: float | None = None  # the same on the kept-alive connection
    peer: str | None = None
    error: str | None = None


class NetworkBucket(BaseModel):
    """One (mode, bucket): the network's share of its median, and the ESTIMATE without it."""

    mode: Literal["official", "strict"]
    name: str
    n: int  # timed successful requests the figures are made of
    median_ms: float | None  # the measured median (what the report scores)
    connect_ms: float | None = None  # median per-request connection setup (official)
    round_trip_ms: float | None = None  # the probes' request → answer time used for it
    extra_flights: int = 0  # extra round trips the request body needs (TCP slow start)
    network_ms: float | None = None  # median per-request network cost the estimate removes
    network_jitter_ms: float | None = None  # SD of the per-request network cost
    share: float | None = None  # network_ms / median_ms
    estimate_median_ms: float | None = None  # ESTIMATE: the localhost-equivalent median
    estimate_speedup: float | None = None  # ESTIMATE: baseline / estimate_median_ms
    # the server's own figure (vLLM's e2e request latency histogram, sum/count over the
    # bucket's requests, warm-up included: /metrics scraped around the bucket)
    server_mean_ms: float | None = None
    client_estimate_mean_ms: float | None = None  # the ESTIMATE's mean over the same requests
    residual_ms: float | None = None  # client_estimate_mean_ms - server_mean_ms


class NetworkSection(BaseModel):
    """Whether the run went over loopback or a network, and what that cost each median."""

    label: NetworkLabel
    why: str  # the sentence that says how the label was decided
    peer: str | None = None  # the address the measured requests went to
    rtt_ms: float | None = None  # the probes' least kept-alive round trip
    rtt_jitter_ms: float | None = None  # SD of the probes' kept-alive round trips
    probes: list[RttProbe] = Field(default_factory=list)
    buckets: list[NetworkBucket] = Field(default_factory=list)
    estimate_score: float | None = None  # ESTIMATE: mean of the estimate speedups
    model: str = ""  # the estimate's model in one sentence
    notes: list[str] = Field(default_factory=list)
