"""Official latency: harness's medians vs the grader-equivalent client's, same server, one run.

One ``harness simulate`` process with fixed timings (TTFT, ITL, output length)
serves both clients. For each bucket of the Efficient Qwen profile, each client
sends its warm-up requests, then the two take turns request by request
(grader, harness, grader, harness, ...), so drift on a shared machine hits
both alike (blocks of requests one after the other showed 2–3 ms of drift
between blocks, more than the clients differ). The grader side is tests/wire/grader_latency.py (urllib + json.dumps,
written from the spec); the harness side is ``run_official_bucket`` (what
``harness latency --mode official`` runs). Reported: each side's median of the
timed requests (all rounds pooled), the ratio harness / grader per bucket, and
the ratio of the two mean speedups (the ranking number).

Usage: .venv/bin/python bench/official_vs_grader.py [--ttft-ms 20] [--itl-ms 2]
       [--runs 60] [--warmup 5] [--json]
(see bench/README.md)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.cli.common import positive_int
from harness.latency.config import LatencyOverrides, from_profile
from harness.latency.runner import LatencyState, run_official_bucket
from harness.profiles import Bucket, load_profile
from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from harness.target import Target
from harness.tokenizer import load_tokenizer
from tests.wire import grader_latency


def measure(args: argparse.Namespace) -> dict[str, Any]:
    profile = load_profile("efficient-qwen")
    spec = profile.latency
    assert spec is not None
    sim_cfg = SimConfig(ttft_ms=args.ttft_ms, itl_ms=args.itl_ms, log_bodies=False)
    out: dict[str, Any] = {"settings": vars(args), "buckets": []}
    with SimProcess(sim_cfg) as sim:
        cfg = from_profile(
            profile,
            Target(folder=Path("."), url=sim.url),
            LatencyOverrides(runs=args.runs, warmup=args.warmup),
        )
        tok = load_tokenizer(cfg.tokenizer)
        grader_latency.wait_for_container(sim.url, interval_s=0.2)
        one = replace(cfg, runs=1, warmup=0)

        async def pair(bucket: Bucket) -> tuple[list[float], list[float]]:
            """One event loop for the whole bucket, as in ``harness latency`` (its worker
            thread is reused); the grader's blocking calls simply block it in between."""
            ours: list[float] = []
            theirs: list[float] = []
            spec_b = [(bucket.name, bucket.prompt_tokens, bucket.max_tokens)]
            grader_latency.run_latency(sim.url, spec_b, warmup=args.warmup, runs=0)
            await run_official_bucket(replace(cfg, runs=0), bucket, tok, LatencyState())
            for _ in range(args.runs):
                g = grader_latency.run_latency(sim.url, spec_b, warmup=0, runs=1)[bucket.name]
                theirs += g.latencies_ms
                state = LatencyState()
                await run_official_bucket(one, bucket, tok, state)
                ours += [r.e2e_ms for r in state.rows if r.ok and r.e2e_ms is not None]
            return ours, theirs

        for bucket in spec.buckets:
            ours, theirs = asyncio.run(pair(bucket))
            m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
            out["buckets"].append(
                {
                    "bucket": bucket.name,
                    "baseline_ms": bucket.baseline_ms,
                    "n": [len(ours), len(theirs)],
                    "harness_median_ms": round(m_ours, 2),
                    "grader_median_ms": round(m_theirs, 2),
                    "ratio": round(m_ours / m_theirs, 4),
                    "diff_ms": round(m_ours - m_theirs, 3),
                }
            )
    rows = out["buckets"]
    s_ours = statistics.mean(b["baseline_ms"] / b["harness_median_ms"] for b in rows)
    s_theirs = statistics.mean(b["baseline_ms"] / b["grader_median_ms"] for b in rows)
    out["harness_speedup"] = round(s_ours, 4)
    out["grader_speedup"] = round(s_theirs, 4)
    out["speedup_ratio"] = round(s_ours / s_theirs, 4)
    return out


def render(res: dict[str, Any]) -> str:
    lines = [
        f"{'bucket':<8} {'n':>9} {'harness ms':>11} {'grader ms':>10} {'diff ms':>8} {'ratio':>7}"
    ]
    for b in res["buckets"]:
        lines.append(
            f"{b['bucket']:<8} {b['n'][0]:>4}/{b['n'][1]:<4} {b['harness_median_ms']:>11.2f} "
            f"{b['grader_median_ms']:>10.2f} {b['diff_ms']:>8.2f} {b['ratio']:>7.4f}"
        )
    lines.append(
        f"mean speedup: harness {res['harness_speedup']:.4f}, grader {res['grader_speedup']:.4f}, "
        f"ratio {res['speedup_ratio']:.4f}"
    )
    return "\n".join(lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ttft-ms", type=float, default=20.0)
    p.add_argument("--itl-ms", type=float, default=2.0)
    p.add_argument("--runs", type=positive_int, default=60, help="timed requests per client")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    res = measure(args)
    print(json.dumps(res, indent=2) if args.json else render(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
