"""How often is ``harness compare`` wrong? False-verdict and detection rates, measured.

Many *groups*, each: a reference server A, an identical twin A' and one server
per known change, each a fresh ``harness simulate`` process (subprocess, port 0)
started for its run and stopped after it; one after the other in a shuffled
order (A always first, as a user measures the reference first), a run of the
real core against each (``measure_latency``
official + strict, or ``measure_throughput``'s Paris sweep), saved as a normal run
folder; then the real ``compare_runs`` on (A, A') and on (A, B) for each change.

Per run size and per metric compare judges:

- **false**: a verdict other than "within noise" where nothing changed for that
  metric (A vs A', or a metric the change leaves alone such as TTFT under an ITL
  change), or a verdict in the wrong direction;
- **detected**: the change called in the right direction.

Each rate comes with its count and a 95 % Wilson interval.

    .venv/bin/python bench/compare_calibration.py                         # everything
    .venv/bin/python bench/compare_calibration.py --kinds latency --sizes 20 --pairs 40
    .venv/bin/python bench/compare_calibration.py --keep DIR             # keep the runs
    .venv/bin/python bench/compare_calibration.py --from DIR             # re-judge kept runs
    .venv/bin/python bench/compare_calibration.py --from DIR1 --from DIR2 # a cut-off bench and its rest

``--from`` judges kept runs again with the compare this checkout has: the same
measurements judged by two versions of compare (docs/compare.md, "Calibration").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibration_counts import (
    SAME,
    SETTINGS,
    Cell,
    Change,
    Setting,
    changes_of,
    count,
    markdown,
    order,
    table,
)

from harness.compare.core import CompareConfig, compare_runs
from harness.compare.model import CompareReport
from harness.errors import HarnessError
from harness.latency import config as latency_config
from harness.latency.core import measure_latency
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from harness.target import Target
from harness.throughput import config as throughput_config
from harness.throughput.core import measure_throughput
from harness.tokenizer import Tokenizer, load_tokenizer

PARIS_MODEL = ("Qwen/Qwen3.5-35B-A3B",)

# ---------------------------------------------------------------- measuring


def sim_config(setting: Setting, change: Change) -> SimConfig:
    return SimConfig(
        ttft_ms=change.ttft(setting.ttft_ms),
        itl_ms=change.itl(setting.itl_ms),
        log_bodies=False,
        log_limit=1000,
        models=PARIS_MODEL if setting.kind == "throughput" else SimConfig().models,
    )


def measure_one(
    setting: Setting, size: int, url: str, folder: Path, tok: Tokenizer, seed: int
) -> None:
    if setting.kind == "latency":
        profile = load_profile("efficient-qwen")
        lcfg = latency_config.from_profile(
            profile,
            Target(folder=folder, url=url),
            latency_config.LatencyOverrides(
                buckets="short",
                mode="both",
                runs=size,
                seed=seed,
                ready_interval_s=0.2,
                calibrate=False,
            ),
        )
        prov = Provenance(profile=profile.name, seed=seed)
        asyncio.run(measure_latency(lcfg, provenance=prov, folder=folder, tokenizer=tok))
        return
    profile = load_profile("gpumode-paris")
    tcfg = throughput_config.from_profile(
        profile,
        Target(folder=folder, url=url),
        throughput_config.ThroughputOverrides(
            levels=",".join(map(str, setting.levels)),
            requests_per_level=size,
            prompt_tokens=setting.prompt_tokens,
            max_tokens=setting.max_tokens,
            seed=seed,
            ready_interval_s=0.2,
            chart=False,
        ),
    )
    prov = Provenance(profile=profile.name, seed=seed)
    asyncio.run(measure_throughput(tcfg, provenance=prov, folder=folder, tokenizer=tok))


def measure_group(
    setting: Setting, size: int, folder: Path, tok: Tokenizer, rng: random.Random
) -> dict[str, Any]:
    """One group: A first, then A' and each change in a shuffled order; each run against a
    simulator started for it and stopped after it (as a user restarts a server with a new
    setting; simulators started together would share their start-up cost with A's run)."""
    changes = {"A": SAME} | {c: changes_of(setting)[c] for c in setting.changes}
    order = ["A", *rng.sample(setting.changes, len(setting.changes))]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    for role in order:
        seed = rng.randrange(1 << 31)
        sim = SimProcess(sim_config(setting, changes[role])).start()
        try:
            measure_one(setting, size, sim.url, folder / role, tok, seed)
        finally:
            try:
                sim.stop()
            except subprocess.TimeoutExpired:  # killed but not yet reaped (seen under load)
                print(f"simulator {sim.pid} did not exit within 10 s", file=sys.stderr)
    return {
        "folder": str(folder),
        "order": order,
        "load1": round(load, 2),
        "load1_end": round(os.getloadavg()[0], 2),
        "seconds": round(time.perf_counter() - t0, 1),
    }


# ---------------------------------------------------------------- judging


def compare(a: Path, b: Path, checkout: str | None) -> CompareReport:
    """This checkout's compare in-process, or another checkout's ``harness compare --json``."""
    if checkout is None:
        return compare_runs(CompareConfig(run_a=a, run_b=b))
    root = Path(checkout).resolve()
    argv = [sys.executable, "-m", "harness", "compare", str(a.resolve()), str(b.resolve())]
    argv += ["--json", "--no-save"]
    env = dict(os.environ, PYTHONPATH=str(root))  # `-m` also puts the cwd first: run there
    out = subprocess.run(
        argv, env=env, cwd=root, capture_output=True, text=True, timeout=300, check=True
    )
    return CompareReport.from_json(out.stdout)  # an older schema is migrated


def judge(
    setting: Setting,
    folder: Path,
    cells: dict[tuple[str, int, str, str], Cell],
    size: int,
    checkout: str | None = None,
) -> None:
    for change_name in setting.changes:
        count(
            setting, size, change_name, compare(folder / "A", folder / change_name, checkout), cells
        )


# ---------------------------------------------------------------- main


def run(args: argparse.Namespace) -> dict[str, Any]:
    keep = Path(args.keep or tempfile.mkdtemp(prefix="calib-"))
    manifest_path = keep / "manifest.json"
    manifest: dict[str, Any] = {"groups": [], "failed": []}
    for folder in args.from_dir:  # kept runs, judged again (several: a cut-off bench's parts)
        kept = json.loads((Path(folder) / "manifest.json").read_text())
        manifest["groups"] += kept["groups"]
        manifest["failed"] += kept.get("failed", [])
    if not args.from_dir:
        keep.mkdir(parents=True, exist_ok=True)
        rng = random.Random(args.seed)
        toks: dict[str, Tokenizer] = {}
        for kind in args.kinds:
            for name in args.settings:
                setting = SETTINGS[(kind, name)]
                tok_name = "qwen:Qwen/Qwen3.5-4B" if kind == "latency" else PARIS_TOK
                tok = toks.setdefault(tok_name, load_tokenizer(tok_name))
                pairs = args.pairs if name == "fast" else args.realistic_pairs
                sizes = [s for s in setting.sizes if not args.sizes or s in args.sizes]
                for size in sizes:
                    for g in range(pairs):
                        folder = keep / f"{kind}-{name}-{size}" / f"g{g:03d}"
                        try:
                            info = measure_group(setting, size, folder, tok, rng)
                        except (HarnessError, subprocess.TimeoutExpired, OSError) as err:
                            # a group that did not finish is left out of the rates, and said
                            manifest["failed"].append(f"{folder}: {err}")
                            print(f"{folder}: failed ({err}), left out", file=sys.stderr)
                            continue
                        info |= {"kind": kind, "setting": name, "size": size}
                        manifest["groups"].append(info)
                        manifest_path.write_text(json.dumps(manifest, indent=1))
                        print(
                            f"{kind} {name} size {size} group {g + 1}/{pairs}: "
                            f"{info['seconds']} s, load {info['load1']}",
                            file=sys.stderr,
                            flush=True,
                        )
    out: dict[str, Any] = {
        "folder": ", ".join(args.from_dir) or str(keep),
        "tables": {},
        "loads": {},
        "failed_groups": manifest["failed"],
    }
    for kind in ("latency", "throughput"):
        cells: dict[tuple[str, int, str, str], Cell] = {}
        loads: list[float] = []
        for info in manifest["groups"]:
            if info["kind"] != kind:
                continue
            setting = SETTINGS[(kind, info["setting"])]
            judge(setting, Path(info["folder"]), cells, info["size"], args.compare_checkout)
            loads.append(info["load1"])
        if cells:
            out["tables"][kind] = {
                "text": table(kind, cells),
                "markdown": markdown(kind, cells),
                "cells": [
                    {"setting": k[0], "size": k[1], "metric": k[2], "change": k[3]} | vars(c)
                    for k, c in sorted(cells.items(), key=order)
                ],
            }
            out["loads"][kind] = {
                "min": min(loads),
                "median": sorted(loads)[len(loads) // 2],
                "max": max(loads),
            }
    if not args.keep and not args.from_dir:
        shutil.rmtree(keep, ignore_errors=True)
    return out


PARIS_TOK = "qwen:Qwen/Qwen3.5-35B-A3B"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--kinds",
        type=lambda s: s.split(","),
        default=["latency", "throughput"],
        help="latency,throughput (default: both)",
    )
    p.add_argument(
        "--settings",
        type=lambda s: s.split(","),
        default=["fast", "realistic"],
        help="fast,realistic (default: both)",
    )
    p.add_argument(
        "--sizes",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[],
        help="only these run sizes (latency runs / throughput requests per level; default: all)",
    )
    p.add_argument("--pairs", type=int, default=40, help="groups per fast setting (default: 40)")
    p.add_argument(
        "--realistic-pairs", type=int, default=20, help="groups per realistic setting (default: 20)"
    )
    p.add_argument("--seed", type=int, default=0, help="orders and prompt seeds (default: 0)")
    p.add_argument("--keep", help="keep the run folders here (default: a temporary folder)")
    p.add_argument(
        "--from",
        dest="from_dir",
        action="append",
        default=[],
        metavar="DIR",
        help="judge the runs kept in DIR again (repeatable: the parts of a bench cut short)",
    )
    p.add_argument(
        "--compare-checkout",
        help="judge with the `harness compare` of another checkout (e.g. main's, to compare "
        "two versions on the same runs), run as a subprocess (default: this checkout's)",
    )
    p.add_argument(
        "--markdown", action="store_true", help="also print a condensed table in Markdown"
    )
    p.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = p.parse_args()
    res = run(args)
    if args.json:
        print(json.dumps(res, indent=1))
        return 0
    for line in res["failed_groups"]:
        print(f"left out: {line}")
    for kind, t in res["tables"].items():
        print(t["text"])
        print(f"load average (1 min) at group start: {res['loads'][kind]}\n")
        if args.markdown:
            print(t["markdown"] + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
