"""The network section of a latency run, as view models (console and report.html)."""

from __future__ import annotations

from harness.latency.network_report import NetworkSection
from harness.view import fmt
from harness.view.model import Section, section, table, text


def network_section_view(net: NetworkSection, score: float | None) -> Section:
    """Loopback or network, each bucket's network share, the ESTIMATE and the server's figure."""
    rows = [
        [
            b.mode,
            b.name,
            fmt.ms(b.median_ms),
            fmt.ms(b.connect_ms),
            fmt.ms(b.round_trip_ms),
            fmt.ms(b.network_ms),
            fmt.pct(b.share, 1),
            fmt.ms(b.estimate_median_ms),
            fmt.times(b.estimate_speedup),
            fmt.ms(b.server_mean_ms),
            fmt.signed(b.residual_ms),
        ]
        for b in net.buckets
    ]
    cols = ["mode", "bucket", "median", "connect", "round trip", "network", "share"]
    cols += ["ESTIMATE median", "ESTIMATE speedup", "server mean", "residual"]
    rtt = (
        f"round trip {fmt.ms(net.rtt_ms)} ± {fmt.ms(net.rtt_jitter_ms)} (probes)"
        if net.rtt_ms is not None
        else "no probe round trip"
    )
    lines = [f"{net.label.upper()}: {net.why}; {rtt}"]
    # over loopback the measured score is the localhost one (the grader's setting): an
    # ESTIMATE beside it would only show the model's error on a few-ms simulator request;
    # unknown (no probes) may be a network: its figures are shown, labelled as they are
    if net.label != "loopback" and net.estimate_score is not None:
        lines.append(
            f"localhost-equivalent score ESTIMATE {fmt.times(net.estimate_score)} "
            f"(measured {fmt.times(score)}); model: {net.model}"
        )
    return section(
        "latency-network",
        "Network: loopback or not",
        text(*lines),
        table(
            "latency-network", "network share of each median", cols, rows, left=["mode", "bucket"]
        )
        if net.label != "loopback"
        else None,
        text(*(f"note: {n}" for n in net.notes), tone="dim"),
    )
