"""Loopback or network against the simulator, directly and through the delaying TCP proxy
(tests/fixtures/delay_proxy.py): the network is labelled and flagged, and the
localhost-equivalent ESTIMATE lands near the direct measurement (docs/timing.md, "Network")."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.latency.config import LatencyConfig
from harness.latency.core import measure_latency
from harness.latency.gate_rules import latency_rules
from harness.latency.report import LatencyReport
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config
from tests.fixtures.delay_proxy import delay_proxy

pytestmark = pytest.mark.timeout(180)

TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT = load_profile().require_latency().bucket("short").model_copy(update={"max_tokens": 32})
RTT_MS = 40.0


def _cfg(url: str) -> LatencyConfig:
    cfg = latency_config(url, (SHORT,), runs=7, warmup=1, calibrate=False, timeout_s=10.0)
    return replace(cfg, ready_interval_s=0.05)


async def _measure(url: str, folder: Path, **changes: object) -> LatencyReport:
    cfg = replace(_cfg(url), **changes)  # type: ignore[arg-type]
    return await measure_latency(cfg, provenance=Provenance(), folder=folder, tokenizer=TOK)


async def test_a_proxied_run_is_labelled_network_flagged_and_estimated(sim_process, tmp_path):
    sim = sim_process(ttft_ms=40, itl_ms=2)
    direct = await _measure(sim.url, tmp_path / "direct")
    with delay_proxy(sim.url, RTT_MS) as url:
        # /metrics scraped around the bucket: the server's own e2e figure as a cross-check
        proxied = await _measure(url, tmp_path / "proxied", metrics="on")

    # every official request traced passively: its connect, its bytes, no TLS on http
    for r in direct.requests:
        assert r.conn is not None and r.conn.connect_ms is not None and r.conn.tls_ms is None
        assert r.conn.request_bytes > 300 and r.conn.mss and r.conn.sent_ms is not None
    # the direct run: loopback, no network flag, no gate label
    assert direct.network is not None and direct.network.label == "loopback"
    assert not any(f.kind is FlagKind.NETWORK for f in direct.flags)

    net = proxied.network
    assert net is not None and net.label == "network"
    assert "loopback but round trip" in net.why  # 127.0.0.1, but the timing shows the hop
    assert net.rtt_ms is not None and RTT_MS - 1 < net.rtt_ms < RTT_MS + 15
    # probes before and after the bucket, five each; every official request traced
    assert [p.at for p in net.probes] == ["before official short"] * 5 + [
        "after official short"
    ] * 5
    assert all(r.conn is not None and r.conn.peer == "127.0.0.1" for r in proxied.requests)
    (flag,) = [f for f in proxied.flags if f.kind is FlagKind.NETWORK]
    assert "official short" in flag.text and "ESTIMATE" in flag.text
    (b,) = net.buckets
    (d,) = direct.official
    assert b.median_ms is not None and d.median_ms is not None
    # a new connection per request pays about two round trips (handshake + request)
    assert b.median_ms - d.median_ms > 1.5 * RTT_MS
    assert b.share is not None and b.share > 0.2
    # the ESTIMATE removes them: near the direct median (the machine is shared: 5 % or 6 ms)
    assert b.estimate_median_ms is not None
    assert abs(b.estimate_median_ms - d.median_ms) <= max(6.0, 0.05 * d.median_ms)
    # the server's mean (handler start → last byte) against the ESTIMATE's mean over the
    # same 8 requests: what is left is the client's and the loopback's own share
    assert b.server_mean_ms is not None and b.residual_ms is not None
    assert abs(b.residual_ms) < max(6.0, 0.05 * b.server_mean_ms)
    assert net.notes == []  # the server counted the requests the client did
    assert d.median_ms is not None and direct.network.buckets[0].server_mean_ms is None
    # the saved report carries it all
    saved = LatencyReport.from_json((tmp_path / "proxied" / "latency.json").read_text())
    assert saved.network is not None and saved.network.label == "network"


async def test_no_rtt_probes_sends_none_and_still_sees_the_connect(sim_process, tmp_path):
    sim = sim_process(ttft_ms=5, itl_ms=1)
    cfg = replace(_cfg(sim.url), rtt_probes=False)
    rep = await measure_latency(cfg, provenance=Provenance(), folder=tmp_path, tokenizer=TOK)
    assert rep.network is not None and rep.network.probes == []
    assert rep.network.label == "unknown"  # loopback is not shown without a round trip
    assert any("no round-trip probe" in n for n in rep.network.notes)
    assert all(r.conn is not None and r.conn.connect_ms is not None for r in rep.requests)


async def test_a_proxied_run_without_probes_is_unknown_never_loopback(sim_process, tmp_path):
    """The proxy completes the handshake at once, as a tunnel on 127.0.0.1 does: without
    probes nothing shows the hop, so the label is unknown and the gate says so (issue 34)."""
    sim = sim_process(ttft_ms=40, itl_ms=2)
    with delay_proxy(sim.url, RTT_MS) as url:
        proxied = await _measure(url, tmp_path / "proxied", rtt_probes=False)
    net = proxied.network
    assert net is not None and net.label == "unknown", net.why
    assert "no round-trip probe" in net.why
    reasons, _ = latency_rules(proxied, None, 600.0)
    assert any(r.text.startswith("latency's network UNKNOWN") for r in reasons)
