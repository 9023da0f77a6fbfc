"""One live row for bench/tune_landscape.py: ``harness tune`` on real simulator candidates,
racing on against racing off (``[race] enabled = false``), one after the other.

The space: ``harness simulate`` with ``--itl-ms`` 4 / 2 / 1 × ``--ttft-ms`` 30 / 300 and
``--jitter-pct J`` (six candidates, the grid; the baseline ``itl 4, ttft 300`` first), over
efficient-qwen without its quality gates (the simulator answers the sample data only:
a trial is check → latency), ``--runs`` timed requests per bucket. Printed per run: the
trials' statuses, the timed latency requests sent (read from each trial's
``latency.json``), the wall time, and the pick; both runs should pick the same candidate.

Usage: .venv/bin/python bench/tune_landscape_live.py [--runs 30] [--buckets short,long]
       [--jitter 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.cli import main as harness_main
from tests.fixtures.tune_profiles import without_quality


def space(folder: Path, runs: int, buckets: str, jitter: float, race: bool) -> Path:
    path = folder / f"space-{'race' if race else 'full'}.toml"
    sim = f"{sys.executable} -m harness simulate --port {{port}} --quiet --jitter-pct {jitter:g}"
    path.write_text(
        f"""
name = "live-{"race" if race else "full"}"
profile = "{without_quality(folder)}"
[serve]
command = "{sim} --itl-ms {{itl_ms}} --ttft-ms {{ttft_ms}}"
stop_grace_s = 3
[params]
itl_ms = [4, 2, 1]
ttft_ms = [300, 30]
[baseline]
itl_ms = 4
ttft_ms = 300
[options]
runs = {runs}
warmup = 1
buckets = "{buckets}"
latency_mode = "official"
[race]
enabled = {"true" if race else "false"}
"""
    )
    return path


def one(folder: Path, runs: int, buckets: str, jitter: float, race: bool) -> dict[str, object]:
    out = folder / ("race" if race else "full")
    t0 = time.monotonic()
    rc = harness_main(
        ["tune", str(space(folder, runs, buckets, jitter, race)), "--out", str(out), "--quiet"]
    )
    wall = time.monotonic() - t0
    tune = json.loads((out / "tune.json").read_text())
    timed = 0
    for t in tune["trials"]:
        lat = out / str(t["folder"]) / "latency.json"
        if t["folder"] and lat.is_file():
            rows = json.loads(lat.read_text())["requests"]
            timed += sum(1 for r in rows if r["phase"] == "timed")
    best = tune["best"]
    return {
        "race": race,
        "rc": rc,
        "wall_s": round(wall, 1),
        "timed_requests": timed,
        "statuses": dict(Counter(t["status"] for t in tune["trials"])),
        "pick": best["params"] if best else None,
        "pick_score": best["score"] if best else None,
        "lost_race_why": [t["why"] for t in tune["trials"] if t["status"] == "lost-race"],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--buckets", default="short,long")
    ap.add_argument("--jitter", type=float, default=2.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for race in (True, False):
            rows.append(one(Path(tmp), args.runs, args.buckets, args.jitter, race))
    for r in rows:
        print(
            f"race {'on ' if r['race'] else 'off'}: {r['timed_requests']} timed requests, "
            f"{r['wall_s']} s, statuses {r['statuses']}, pick {r['pick']} ({r['pick_score']})",
            file=sys.stderr,
        )
        for why in r["lost_race_why"]:  # type: ignore[attr-defined]
            print(f"  lost-race: {why}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0 if all(r["rc"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
