"""Loopback or network, the network's share of each median, and the localhost-equivalent
ESTIMATE (pure functions over a report, its probes and /metrics pairs). docs/timing.md,
"Network".

The grader posts to localhost from the same machine, a new connection per request.
Against a remote URL every official request also pays, on top of what the grader
would time:

- the connection setup: the TCP handshake (one round trip; TLS adds one or two),
  which the request's own trace measures (``RowConn.connect_ms``);
- the request → answer trip: the request travels out and the answer back, one more
  round trip (measured by the probes' first request on a new connection, the same
  position as the official request: a proxy that holds the first bytes for the
  handshake shows it there);
- ``extra_flights`` round trips when the body is larger than TCP's initial window
  (10 segments of the connection's MSS; slow start doubles it per round trip).

The loopback equivalent pays ~0 of each, so per request
``estimate = e2e − (connect + round trip + extra_flights × rtt)``, and the
ESTIMATE's median is the median of those. Strict mode keeps its connection open
(opened by the warm-ups): a streamed request pays one plain round trip (the
probes' kept-alive ``reuse_ms``).
"""

from __future__ import annotations

import ipaddress
import math
import statistics
from collections.abc import Mapping, Sequence

from harness.engines.read import delta, detect_from_names
from harness.latency.network_report import NetworkBucket, NetworkLabel, NetworkSection, RttProbe
from harness.latency.report import LatencyReport, RequestRow
from harness.risk import FlagKind, RiskFlag
from harness.stats.robust import median as _median

# harness's thresholds, not a grader's:
LOOPBACK_RTT_MS = 2.0  # a loopback address whose round trip is above this has a hop between
NETWORK_SHARE = 0.01  # the network (median cost + jitter) above 1 % of a median is flagged
INIT_CWND = 10  # Linux's initial congestion window, in segments (RFC 6928)


MODEL = (
    "per request: e2e − (its own connection setup + the probes' request→answer time on a "
    "new connection + extra slow-start round trips of its body); strict (kept-alive "
    "streams): e2e − one kept-alive round trip"
)

Values = Mapping[str, float]


def is_loopback(address: str | None) -> bool:
    """127.0.0.0/8, ::1 and ::ffff:127.x are loopback; anything unparsable is not."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address == "localhost"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def extra_flights(request_bytes: int, mss: int | None, init_cwnd: int = INIT_CWND) -> int:
    """Round trips beyond the first that slow start needs to send ``request_bytes``."""
    if not mss or mss <= 0 or request_bytes <= 0:
        return 0
    segments = math.ceil(request_bytes / mss)
    cwnd, sent, flights = init_cwnd, 0, 0
    while sent < segments:
        sent += cwnd
        cwnd *= 2
        flights += 1
    return flights - 1


def classify(
    peers: Sequence[str], rtt_ms: float | None, connect_ms: float | None
) -> tuple[NetworkLabel, str]:
    """``loopback`` only when every peer is a loopback address AND the probes' round trip
    and the connection setup are below LOOPBACK_RTT_MS (a proxy or tunnel on 127.0.0.1 shows
    in the timing, not in the address); ``network`` when a peer or a timing says so;
    ``unknown`` with nothing, or without a probe round trip: a proxy on a loopback address
    completes the handshake at once, so the connection setup alone cannot prove loopback."""
    remote = sorted({p for p in peers if not is_loopback(p)})
    if remote:
        return "network", f"peer {remote[0]} is not a loopback address"
    if rtt_ms is None and connect_ms is None and not peers:
        return "unknown", "no request was traced and no probe answered"
    where = f"peer {peers[0]}" if peers else "no peer seen"
    slow = [
        f"{what} {ms:.1f} ms"
        for what, ms in (("round trip", rtt_ms), ("connection setup", connect_ms))
        if ms is not None and ms > LOOPBACK_RTT_MS
    ]
    if slow:
        return "network", (
            f"{where} is loopback but {' and '.join(slow)} > {LOOPBACK_RTT_MS:g} ms: a proxy, "
            "tunnel or hop sits between"
        )
    if rtt_ms is None:
        return "unknown", (
            f"{where} is loopback, but no round-trip probe was taken (--no-rtt-probes, or "
            "none answered): a proxy on a loopback address cannot be told from the server"
        )
    parts = ", ".join(
        f"{what} {ms:.2f} ms"
        for what, ms in (("round trip", rtt_ms), ("connection setup", connect_ms))
        if ms is not None
    )
    return "loopback", f"{where} is loopback" + (f" ({parts})" if parts else "")


def _mid(values: Sequence[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return _median(got)


def edge_round_trips(probes: Sequence[RttProbe], at: str) -> tuple[float | None, float | None]:
    """(median first_ms, median reuse_ms) of the probes taken at ``at``: the typical trip,
    as the typical request pays it (one slow or lucky answer does not move it)."""
    mine = [p for p in probes if p.at == at and p.error is None]
    return _mid([p.first_ms for p in mine]), _mid([p.reuse_ms for p in mine])


def bucket_round_trips(
    probes: Sequence[RttProbe], mode: str, name: str
) -> tuple[float | None, float | None]:
    """The bucket's (new-connection, kept-alive) round trips: the median of the probes at
    its two edges (before and after) together; with none there, of all probes."""
    ok = [p for p in probes if p.error is None]
    edges = {f"before {mode} {name}", f"after {mode} {name}"}
    mine = [p for p in ok if p.at in edges] or ok
    return _mid([p.first_ms for p in mine]), _mid([p.reuse_ms for p in mine])


def request_cost(
    row: RequestRow, first_ms: float | None, reuse_ms: float | None
) -> tuple[float, int] | None:
    """(network ms this request paid, extra flights), or None when nothing says.

    Official (a new connection each): its own connect + the new-connection request→answer
    trip (without probes: one more handshake-sized round trip) + extra slow-start trips.
    Strict (kept-alive): one kept-alive round trip."""
    if row.mode == "strict":
        return (reuse_ms, 0) if reuse_ms is not None else None
    conn = row.conn
    connect = conn.connect_ms if conn is not None else None
    if connect is None and first_ms is None:
        return None
    trip = first_ms if first_ms is not None else connect or 0.0
    flights = extra_flights(conn.request_bytes, conn.mss) if conn is not None else 0
    rtt = reuse_ms if reuse_ms is not None else connect or 0.0
    return (connect or 0.0) + trip + flights * rtt, flights


def _server_mean_ms(pair: tuple[Values, Values] | None) -> tuple[float | None, float | None]:
    """(server mean e2e in ms, requests it counted) from one bucket's /metrics pair: the
    e2e histogram of the engine the scrape's names show (harness/engines/; none on
    llama.cpp, whose server keeps no latency histogram)."""
    if pair is None:
        return None, None
    before, after = pair
    engine = detect_from_names(after)
    got = delta(engine, "e2e_seconds", before, after) if engine is not None else None
    if got is None or got.value is None or not got.count:
        return None, None
    return 1000.0 * got.value / got.count, got.count


def network_bucket(
    mode: str,
    name: str,
    rows: Sequence[RequestRow],
    baseline_ms: float,
    probes: Sequence[RttProbe],
    pair: tuple[Values, Values] | None = None,
) -> tuple[NetworkBucket, list[str]]:
    """One bucket's figures from its rows (warm-up and timed) and the probes at its edges."""
    first, reuse = bucket_round_trips(probes, mode, name)
    notes: list[str] = []
    timed: list[tuple[float, float, int]] = []  # (e2e, cost, flights)
    every: list[float] = []  # the estimate of every successful request, warm-up included
    for r in rows:
        if not r.ok or r.e2e_ms is None:
            continue
        cost = request_cost(r, first, reuse)
        if cost is None:
            continue
        every.append(r.e2e_ms - cost[0])
        if r.phase == "timed":
            timed.append((r.e2e_ms, cost[0], cost[1]))
    e2e = [t[0] for t in timed]
    costs = [t[1] for t in timed]
    estimates = [t[0] - t[1] for t in timed]
    median = _median(e2e)
    net = _median(costs)
    est = _median(estimates)
    connects = [r.conn.connect_ms for r in rows if r.conn and r.conn.connect_ms is not None]
    connects_timed = [
        r.conn.connect_ms
        for r in rows
        if r.phase == "timed" and r.conn and r.conn.connect_ms is not None
    ]
    out = NetworkBucket(
        mode="official" if mode == "official" else "strict",
        name=name,
        n=len(timed),
        median_ms=median,
        connect_ms=_median(connects_timed or connects),
        round_trip_ms=first if mode == "official" else reuse,
        extra_flights=max((t[2] for t in timed), default=0),
        network_ms=net,
        network_jitter_ms=statistics.pstdev(costs) if len(costs) > 1 else None,
        share=net / median if net is not None and median else None,
        estimate_median_ms=est,
        estimate_speedup=baseline_ms / est if est and est > 0 else None,
    )
    server, counted = _server_mean_ms(pair)
    if server is not None and every:
        out.server_mean_ms = server
        out.client_estimate_mean_ms = statistics.fmean(every)
        out.residual_ms = out.client_estimate_mean_ms - server
        if counted is not None and round(counted) != len(every):
            notes.append(
                f"{mode} {name}: the server counted {counted:.0f} requests, the client "
                f"{len(every)} successful ones: the cross-check compares different sets"
            )
    return out, notes


def network_section(
    report: LatencyReport,
    probes: Sequence[RttProbe],
    pairs: Mapping[tuple[str, str], tuple[Values, Values]] | None = None,
) -> NetworkSection:
    """The report's ``network`` section (the report's rows, the probes, /metrics pairs)."""
    pairs = pairs or {}
    ok_probes = [p for p in probes if p.error is None]
    # each edge's median kept-alive round trip; the least is the run's round trip, their
    # spread across the run the jitter
    edges = [edge_round_trips(probes, at)[1] for at in dict.fromkeys(p.at for p in ok_probes)]
    reuses = [r for r in edges if r is not None]
    rtt = min(reuses) if reuses else None
    peers = [r.conn.peer for r in report.requests if r.conn and r.conn.peer]
    peers += [p.peer for p in ok_probes if p.peer]
    connects = [r.conn.connect_ms for r in report.requests if r.conn and r.conn.connect_ms]
    label, why = classify(list(dict.fromkeys(peers)), rtt, _median(connects))
    section = NetworkSection(
        label=label,
        why=why,
        peer=peers[0] if peers else None,
        rtt_ms=rtt,
        rtt_jitter_ms=statistics.pstdev(reuses) if len(reuses) > 1 else None,
        probes=list(probes),
        model=MODEL,
    )
    failed = [p for p in probes if p.error is not None]
    if failed:
        section.notes.append(f"{len(failed)} of {len(probes)} probes failed ({failed[0].error})")
    if not ok_probes:
        section.notes.append(
            "no round-trip probe (--no-rtt-probes, or none answered): the request→answer trip is "
            "taken as one more connection setup"
        )
    for mode, results in (("official", report.official), ("strict", report.strict)):
        for b in results:
            rows = [r for r in report.requests if r.mode == mode and r.bucket == b.name]
            nb, notes = network_bucket(
                mode, b.name, rows, b.baseline_ms, probes, pairs.get((mode, b.name))
            )
            section.buckets.append(nb)
            section.notes += notes
    scored = [b for b in section.buckets if b.mode == ("official" if report.official else "strict")]
    speedups = [b.estimate_speedup for b in scored]
    if scored and all(s is not None for s in speedups):
        section.estimate_score = statistics.fmean(s for s in speedups if s is not None)
    return section


def flagged_buckets(section: NetworkSection, share: float = NETWORK_SHARE) -> list[NetworkBucket]:
    """The buckets whose network cost plus jitter is above ``share`` of their median."""
    if section.label != "network":
        return []
    out = []
    for b in section.buckets:
        if b.network_ms is None or not b.median_ms:
            continue
        jitter = max(b.network_jitter_ms or 0.0, section.rtt_jitter_ms or 0.0)
        if (b.network_ms + jitter) / b.median_ms > share:
            out.append(b)
    return out


def network_flags(section: NetworkSection, score: float | None) -> list[RiskFlag]:
    """One ``network`` flag when the run went over a network whose round trip and jitter are
    more than NETWORK_SHARE of a median; it names each bucket's share and the ESTIMATE."""
    hit = flagged_buckets(section)
    if not hit:
        return []
    rtt = f"round trip {section.rtt_ms:.1f} ms" if section.rtt_ms is not None else "round trip ?"
    if section.rtt_jitter_ms is not None:
        rtt += f" ± {section.rtt_jitter_ms:.1f}"
    parts = [
        f"{b.mode} {b.name} {b.share:.0%} of its median ({b.network_ms:.1f} of "
        f"{b.median_ms:.1f} ms; localhost ESTIMATE {b.estimate_median_ms:.1f} ms)"
        for b in hit
        if b.share is not None and b.median_ms is not None and b.estimate_median_ms is not None
    ]
    text = (
        f"network: measured over a network ({section.why}; {rtt}); the grader times on "
        f"localhost: the network is {', '.join(parts)}"
    )
    if section.estimate_score is not None and score is not None:
        text += (
            f"; localhost-equivalent score ESTIMATE {section.estimate_score:.2f}× against "
            f"{score:.2f}× measured"
        )
    return [RiskFlag(kind=FlagKind.NETWORK, text=text, source="latency")]
