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
    .venv/bin/python bench/compare_calibration.py --keep /tmp/calib       # keep the runs
    .venv/bin/python bench/compare_calibration.py --from /tmp/calib       # re-judge kept runs

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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.compare.core import CompareConfig, compare_runs
from harness.compare.model import CompareReport
from harness.errors import HarnessError
from harness.flags import Target
from harness.latency import config as latency_config
from harness.latency.core import measure_latency
from harness.profiles import load_profile
from harness.runs import Provenance
from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from harness.stats import wilson_interval
from harness.throughput import config as throughput_config
from harness.throughput.core import measure_throughput
from harness.tokenizer import Tokenizer, load_tokenizer

PARIS_MODEL = ("Qwen/Qwen3.5-35B-A3B",)

# ---------------------------------------------------------------- settings


@dataclass(frozen=True)
class Change:
    """A server B: its simulator timings from A's, and which metrics it moves (and how)."""

    name: str
    ttft: Callable[[float], float]
    itl: Callable[[float], float]
    moves: Callable[[str], str | None]  # metric → expected verdict, None: unchanged


def _latency_moves_all(metric: str) -> str:
    return "lower" if metric.endswith("score") else "slower"


def _latency_moves_e2e(metric: str) -> str | None:
    return None if metric == "strict ttft" else _latency_moves_all(metric)


SAME = Change("same", lambda t: t, lambda i: i, lambda m: None)
LATENCY_CHANGES = {
    "same": SAME,
    "+10%": Change("+10%", lambda t: t * 1.1, lambda i: i * 1.1, _latency_moves_all),
    "ttft+3ms": Change("ttft+3ms", lambda t: t + 3, lambda i: i, _latency_moves_all),
    "itl+10%": Change("itl+10%", lambda t: t, lambda i: i * 1.1, _latency_moves_e2e),
}
THROUGHPUT_CHANGES = {
    "same": SAME,
    # every timing 1/0.9 as long: the token rate 10 % lower
    "rate-10%": Change("rate-10%", lambda t: t / 0.9, lambda i: i / 0.9, lambda m: "lower"),
}


@dataclass(frozen=True)
class Setting:
    kind: str  # latency | throughput
    name: str
    ttft_ms: float
    itl_ms: float
    sizes: tuple[int, ...]  # latency: timed runs; throughput: requests per level
    changes: tuple[str, ...]
    levels: tuple[int, ...] = ()
    prompt_tokens: int = 0
    max_tokens: int = 0

    def describe(self) -> str:
        if self.kind == "latency":
            return (
                f"latency {self.name}: short bucket (64 prompt / 128 output tokens), "
                f"TTFT {self.ttft_ms:g} ms, ITL {self.itl_ms:g} ms, official + strict"
            )
        return (
            f"throughput {self.name}: Paris official sweep, levels "
            f"{','.join(map(str, self.levels))}, {self.prompt_tokens} prompt / "
            f"{self.max_tokens} output tokens, 2 spot checks a level, "
            f"TTFT {self.ttft_ms:g} ms, ITL {self.itl_ms:g} ms"
        )


SETTINGS = {
    ("latency", "fast"): Setting(
        "latency", "fast", 30.0, 0.15, (5, 20, 50), ("same", "+10%", "ttft+3ms", "itl+10%")
    ),
    ("latency", "realistic"): Setting("latency", "realistic", 40.0, 2.0, (20,), ("same", "+10%")),
    ("throughput", "fast"): Setting(
        "throughput", "fast", 5.0, 0.5, (8, 64), ("same", "rate-10%"), (1, 8), 64, 64
    ),
    ("throughput", "realistic"): Setting(
        "throughput", "realistic", 30.0, 2.0, (64,), ("same", "rate-10%"), (4, 16), 1024, 256
    ),
}

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
    changes = {"A": SAME} | {c: _changes(setting)[c] for c in setting.changes}
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


def _changes(setting: Setting) -> dict[str, Change]:
    return LATENCY_CHANGES if setting.kind == "latency" else THROUGHPUT_CHANGES


# ---------------------------------------------------------------- judging


def verdicts(rep: CompareReport) -> dict[str, str]:
    """metric → compare's verdict, for every metric compare judged."""
    out: dict[str, str] = {}
    for d in rep.latency:
        out[f"{d.mode} {d.metric}"] = d.verdict
    for s in rep.latency_scores:
        out[f"{s.mode} score"] = s.verdict
    for lv in rep.throughput:
        out[f"level {lv.concurrency} tok/s"] = lv.verdict
    if rep.throughput_score is not None:
        out["score"] = rep.throughput_score.verdict
    return out


NO_CALL = ("inconclusive", "no data")  # older compares know only "no data"


@dataclass
class Cell:
    """One (setting, size, metric, change): outcomes over the groups."""

    n: int = 0
    false: int = 0
    detected: int = 0
    no_call: int = 0  # "inconclusive" or "no data": compare declined to judge


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
        change = _changes(setting)[change_name]
        rep = compare(folder / "A", folder / change_name, checkout)
        for metric, v in verdicts(rep).items():
            want = change.moves(metric)
            key = (setting.name, size, metric, change_name)
            cell = cells.setdefault(key, Cell())
            cell.n += 1
            if v in NO_CALL:
                cell.no_call += 1
            elif want is None:
                cell.false += v != "within noise"
            else:
                cell.detected += v == want
                cell.false += v not in ("within noise", want)


def rate(k: int, n: int) -> str:
    ci = wilson_interval(k, n)
    if ci is None:
        return "-"
    return f"{k:>3}/{n:<3} {100 * k / n:5.1f}% [{100 * ci[0]:4.1f},{100 * ci[1]:5.1f}]"


def table(kind: str, cells: dict[tuple[str, int, str, str], Cell]) -> str:
    lines = [
        f"{'setting':<10} {'size':>4}  {'metric':<17} {'change':<9} "
        f"{'false verdicts':<26} {'detected':<26} {'no call':>7}"
    ]
    for (name, size, metric, change), c in sorted(cells.items(), key=_order):
        detected = (
            "" if change == "same" or _no_move(kind, change, metric) else rate(c.detected, c.n)
        )
        lines.append(
            f"{name:<10} {size:>4}  {metric:<17} {change:<9} {rate(c.false, c.n):<26} "
            f"{detected:<26} {c.no_call:>7}"
        )
    return "\n".join(lines)


def markdown(kind: str, cells: dict[tuple[str, int, str, str], Cell]) -> str:
    """One row per (setting, size, metric): false verdicts over every comparison in which the
    metric did not move (identical servers, and changes that leave it alone), the detection
    rate of each change that moves it, verdicts in the wrong direction, and no-calls."""
    moving = [c for c in (LATENCY_CHANGES if kind == "latency" else THROUGHPUT_CHANGES)]
    moving = [c for c in moving if c != "same"]
    rows: dict[tuple[str, int, str], dict[str, Cell]] = {}
    for (name, size, metric, change), c in sorted(cells.items(), key=_order):
        rows.setdefault((name, size, metric), {})[change] = c
    head = ["setting", "size", "metric", "false verdicts", *[f"{c} detected" for c in moving]]
    head += ["wrong direction", "no call"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, size, metric), by_change in rows.items():
        still = {ch: c for ch, c in by_change.items() if ch == "same" or _no_move(kind, ch, metric)}
        moved = {ch: c for ch, c in by_change.items() if ch not in still}
        false = _md_rate(sum(c.false for c in still.values()), sum(c.n for c in still.values()))
        cols = [name, str(size), metric, false]
        for ch in moving:
            m = moved.get(ch)
            cols.append("—" if m is None else _md_rate(m.detected, m.n))
        wrong = sum(c.false for c in moved.values())
        cols.append(f"{wrong}/{sum(c.n for c in moved.values())}" if moved else "—")
        cols.append(str(sum(c.no_call for c in by_change.values())))
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines)


def _md_rate(k: int, n: int) -> str:
    ci = wilson_interval(k, n)
    if ci is None:
        return "—"
    return f"{k}/{n} = {100 * k / n:.0f} % [{100 * ci[0]:.0f}, {100 * ci[1]:.0f}]"


def _no_move(kind: str, change: str, metric: str) -> bool:
    changes = LATENCY_CHANGES if kind == "latency" else THROUGHPUT_CHANGES
    return changes[change].moves(metric) is None


def _order(item: tuple[tuple[str, int, str, str], Cell]) -> tuple[Any, ...]:
    name, size, metric, change = item[0]
    words = metric.split()
    level = int(words[1]) if words[0] == "level" else 10**6  # levels in number order, score last
    changes = list(LATENCY_CHANGES | THROUGHPUT_CHANGES)
    return (name, size, level, metric, changes.index(change))


# ---------------------------------------------------------------- main


def run(args: argparse.Namespace) -> dict[str, Any]:
    keep = Path(args.keep or args.from_dir or tempfile.mkdtemp(prefix="calib-"))
    manifest_path = keep / "manifest.json"
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text()) if args.from_dir else {"groups": []}
    )
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
                            manifest.setdefault("failed", []).append(f"{folder}: {err}")
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
        "folder": str(keep),
        "tables": {},
        "loads": {},
        "failed_groups": manifest.get("failed", []),
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
                    for k, c in sorted(cells.items(), key=_order)
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
    p.add_argument("--from", dest="from_dir", help="judge the runs kept in this folder again")
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
