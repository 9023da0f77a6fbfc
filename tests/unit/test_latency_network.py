"""Loopback or network, the localhost-equivalent ESTIMATE and the network flag: pure arithmetic
with literal numbers (harness/latency/network.py, docs/timing.md "Network")."""

from __future__ import annotations

import argparse

import pytest

from harness.latency.config import LatencyOverrides
from harness.latency.gate_rules import latency_rules
from harness.latency.network import (
    LOOPBACK_RTT_MS,
    classify,
    extra_flights,
    flagged_buckets,
    is_loopback,
    network_flags,
    network_section,
    request_cost,
)
from harness.latency.network_report import NetworkSection, RowConn, RttProbe
from harness.latency.network_views import network_section_view
from harness.latency.report import BucketResult, LatencyReport, RequestRow
from harness.risk import FlagKind
from harness.view.model import Text

# vLLM's e2e histogram (vllm/v1/metrics/loggers.py), written out rather than read from the
# engine record under test
SERVER_E2E_SUM = "vllm:e2e_request_latency_seconds_sum"
SERVER_E2E_COUNT = "vllm:e2e_request_latency_seconds_count"


@pytest.mark.parametrize(
    ("address", "loop"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("10.0.0.7", False),
        ("2001:db8::1", False),
        ("::ffff:10.0.0.7", False),
        ("", False),
        (None, False),
        ("not an address", False),
    ],
)
def test_loopback_addresses(address, loop):
    assert is_loopback(address) is loop


@pytest.mark.parametrize(
    ("nbytes", "mss", "extra"),
    [
        (500, 1460, 0),
        (14_600, 1460, 0),  # exactly the initial window: one flight
        (14_601, 1460, 1),
        (43_800, 1460, 1),  # 10 + 20 segments
        (43_801, 1460, 2),
        (40_000, 65_483, 0),  # loopback's MSS: everything in one flight
        (40_000, None, 0),  # unknown MSS: nothing added
        (0, 1460, 0),
    ],
)
def test_extra_slow_start_flights(nbytes, mss, extra):
    assert extra_flights(nbytes, mss) == extra


def test_classify_by_address_and_by_round_trip():
    assert classify(["127.0.0.1"], 0.2, 0.1)[0] == "loopback"
    label, why = classify(["127.0.0.1"], 40.0, 0.1)
    assert label == "network" and "round trip 40.0 ms" in why
    # the setup alone says so too (a real network on a loopback-looking tunnel)
    assert classify(["127.0.0.1"], None, LOOPBACK_RTT_MS + 0.5)[0] == "network"
    label, why = classify(["127.0.0.1", "10.1.2.3"], 0.3, 0.2)
    assert label == "network" and "10.1.2.3" in why
    assert classify([], None, None)[0] == "unknown"
    # without a probe round trip a fast handshake proves nothing: a proxy on 127.0.0.1
    # completes it at once (--no-rtt-probes; issue 34)
    label, why = classify(["127.0.0.1"], None, 0.1)
    assert label == "unknown" and "no round-trip probe" in why


def _row(
    e2e: float | None, *, phase: str = "timed", connect: float | None = 0.2, **kw
) -> RequestRow:
    conn = RowConn(connect_ms=connect, peer="127.0.0.1", mss=65_483, request_bytes=500)
    return RequestRow(
        bucket=kw.pop("bucket", "short"),
        mode=kw.pop("mode", "official"),
        phase=phase,  # type: ignore[arg-type]
        index=0,
        ok=e2e is not None,
        e2e_ms=e2e,
        conn=conn if connect is not None else None,
        **kw,
    )


def test_request_cost_official_and_strict():
    # a new connection: its own setup + the new-connection request→answer trip
    assert request_cost(_row(400.0, connect=50.0), 51.0, 50.5) == (101.0, 0)
    # a body beyond the initial window pays a kept-alive round trip per extra flight
    big = _row(400.0, connect=50.0)
    assert big.conn is not None
    big.conn.request_bytes, big.conn.mss = 43_801, 1460
    assert request_cost(big, 51.0, 50.0) == (201.0, 2)
    # no probes: the request→answer trip is taken as one more connection setup
    assert request_cost(_row(400.0, connect=50.0), None, None) == (100.0, 0)
    # strict streams are kept alive: one kept-alive round trip
    assert request_cost(_row(400.0, mode="strict", connect=None), 99.0, 50.0) == (50.0, 0)
    assert request_cost(_row(400.0, mode="strict", connect=None), None, None) is None
    assert request_cost(_row(400.0, connect=None), None, None) is None


def _bucket(median: float | None) -> BucketResult:
    return BucketResult(
        name="short",
        mode="official",
        endpoint="/invocations",
        prompt_tokens_nominal=64,
        prompt_tokens=61,
        max_tokens=128,
        baseline_ms=2582.0,
        n_ok=3,
        n_failed=0,
        median_ms=median,
        speedup=None if median is None else 2582.0 / median,
    )


def _probes(first: float, reuse: float) -> list[RttProbe]:
    return [
        RttProbe(at=f"{edge} official short", path="/ping", connect_ms=0.1, first_ms=f, reuse_ms=r)
        for edge in ("before", "after")
        for f, r in ((first, reuse), (first + 5, reuse + 5), (first, reuse))  # median counts
    ]


def _report(e2es: list[float], connect: float = 0.2) -> LatencyReport:
    rows = [_row(300.0, phase="warmup", connect=connect)]
    rows += [_row(x, connect=connect) for x in e2es] + [_row(None, connect=connect)]
    med = sorted(e2es)[len(e2es) // 2]
    return LatencyReport(
        mode="official", official=[_bucket(med)], requests=rows, score=2582.0 / med
    )


def test_network_section_estimate_flag_and_server_cross_check():
    rep = _report([400.2, 402.2, 404.2])
    pairs = {
        ("official", "short"): (
            {SERVER_E2E_SUM: 10.0, SERVER_E2E_COUNT: 7.0},
            {SERVER_E2E_SUM: 10.0 + 4 * 0.2995, SERVER_E2E_COUNT: 11.0},
        )
    }
    net = network_section(rep, _probes(100.0, 50.0), pairs)
    assert net.label == "network" and net.rtt_ms == 50.0
    (b,) = net.buckets
    assert b.n == 3  # the timed successes (warm-up and failure left out)
    assert b.network_ms == pytest.approx(100.2)  # 0.2 connect + 100 request→answer
    assert b.estimate_median_ms == pytest.approx(302.0)
    assert b.share == pytest.approx(100.2 / 402.2)
    assert b.estimate_speedup == pytest.approx(2582.0 / 302.0)
    assert net.estimate_score == pytest.approx(2582.0 / 302.0)
    # the server's own mean over the bucket's 4 requests against the ESTIMATE's mean
    assert b.server_mean_ms == pytest.approx(299.5)
    assert b.client_estimate_mean_ms == pytest.approx((199.8 + 300.0 + 302.0 + 304.0) / 4)
    assert b.residual_ms == pytest.approx(b.client_estimate_mean_ms - 299.5)
    assert net.notes == []
    (flag,) = network_flags(net, rep.score)
    assert flag.kind is FlagKind.NETWORK and flag.source == "latency"
    assert "ESTIMATE 302.0 ms" in flag.text


def test_a_loopback_run_raises_no_flag_and_a_tiny_network_share_neither():
    rep = _report([295.4, 295.5, 295.6], connect=0.1)
    net = network_section(rep, _probes(0.4, 0.2))
    assert net.label == "loopback"
    assert network_flags(net, rep.score) == []
    # a LAN: not loopback, but 0.6 ms of network against 295 ms is under the 1 % share
    lan = net.model_copy(update={"label": "network"})
    assert flagged_buckets(lan) == [] and network_flags(lan, rep.score) == []
    # the same LAN in front of a 40 ms median is flagged
    assert flagged_buckets(lan, share=0.001) != []


def test_no_probes_and_failed_probes_are_said():
    rep = _report([400.0, 401.0, 402.0], connect=50.0)
    net = network_section(rep, [])
    assert net.label == "network"  # the connection setup alone shows the network
    assert net.buckets[0].network_ms == pytest.approx(100.0)
    assert any("--no-rtt-probes" in n for n in net.notes)
    failed = [RttProbe(at="before official short", path="/ping", error="ConnectionRefused")]
    assert any("1 of 1 probes failed" in n for n in network_section(rep, failed).notes)


def test_without_probes_a_fast_loopback_run_is_unknown_and_the_gate_says_so():
    rep = _report([400.0, 401.0, 402.0], connect=0.1)
    rep.network = network_section(rep, [])
    assert rep.network.label == "unknown"
    reasons, _ = latency_rules(rep, None, 600.0)
    (said,) = [r.text for r in reasons if "network" in r.text]
    assert said.startswith("latency's network UNKNOWN, loopback not shown (peer 127.0.0.1 is")
    view = network_section_view(rep.network, rep.score)
    lines = [line for b in view.blocks if isinstance(b, Text) for line in b.lines]
    assert lines[0].startswith("UNKNOWN: peer 127.0.0.1 is loopback, but no round-trip probe")
    assert lines[1].startswith("localhost-equivalent score ESTIMATE ")


def test_empty_report():
    net = network_section(LatencyReport(mode="official"), [])
    assert net.label == "unknown" and net.buckets == [] and net.estimate_score is None
    assert network_flags(net, None) == []


def test_gate_labels_a_network_run_as_its_network_division():
    rep = _report([400.2, 402.2, 404.2])
    rep.network = network_section(rep, _probes(100.0, 50.0))
    reasons, _ = latency_rules(rep, None, 600.0)
    (line,) = [r for r in reasons if "NETWORK" in r.text]
    assert not line.blocking and "ESTIMATE 8.55×" in line.text
    rep.network = NetworkSection(label="loopback", why="peer 127.0.0.1 is loopback")
    reasons, _ = latency_rules(rep, None, 600.0)
    assert not any("NETWORK" in r.text for r in reasons)


def test_no_rtt_probes_is_a_switch_that_reaches_the_config_and_the_command_line():
    parser = argparse.ArgumentParser()
    LatencyOverrides.add_arguments(parser)
    assert LatencyOverrides.from_args(parser.parse_args([])).rtt_probes is True
    off = LatencyOverrides.from_args(parser.parse_args(["--no-rtt-probes"]))
    assert off.rtt_probes is False and "--no-rtt-probes" in off.argv()


def test_the_network_view_shows_the_table_only_over_a_network():
    from harness.latency.views import sections

    rep = _report([400.2, 402.2, 404.2])
    rep.network = network_section(rep, _probes(100.0, 50.0))
    (net,) = [s for s in sections(rep) if s.key == "latency-network"]
    assert any(getattr(b, "key", "") == "latency-network" for b in net.blocks)
    assert "localhost-equivalent score ESTIMATE" in _text(net)
    rep.network = network_section(_report([295.0, 295.1, 295.2]), _probes(0.4, 0.2))
    (net,) = [s for s in sections(rep) if s.key == "latency-network"]
    assert not any(getattr(b, "columns", None) for b in net.blocks)
    # loopback: the measured score is the localhost one; no ESTIMATE beside it
    assert "LOOPBACK" in _text(net) and "ESTIMATE" not in _text(net)


def _text(sec: object) -> str:
    return "\n".join(
        line for b in getattr(sec, "blocks", []) for line in (getattr(b, "lines", None) or [])
    )
