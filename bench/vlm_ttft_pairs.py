"""``harness vlm run`` against the organisers' own ``benchmark.py``: alternating process pairs.

Each pair runs, as two separate processes on the same wrapper, model and rows,
the official self-test script (unmodified: pass its path with ``--official``;
it is public, e.g. the AICAS 2026 template repository, and not part of this
repository) and ``python -m harness vlm run`` (the orchestrator, the runner
script and the reports). The order alternates (pair 0: official first). Per
pair it records both ``result.json`` figures and whether the answers are
identical; over the pairs it prints the geometric mean of the ratios
runner / official (TTFT and tok/s) with a 95 % Student-t interval on the log
ratios, and the same split by which process ran first.

Both processes run the same wrapper: the given one (the organisers' template
or the test wrapper), subclassed so that its ``model.generate`` is timed from
inside (perf_counter, then synchronize), written to ``calls.json`` at exit.
The official TTFT minus that inner time is what the timed region holds besides
the model's work, so a difference in procedure shows apart from the model's
own run-to-run spread. ``--answer-cap N`` also caps ``max_new_tokens`` above
the timed 128-token call at N (only the untimed 1024-token answer call is
shortened), so that a pair on the random 2B-shape model takes three minutes
instead of fifteen. The timed calls (TTFT, tok/s) are the official ones.

``--deadline-s S`` starts no new pair once S seconds have passed (each pair's
time is estimated from the last one), so the script ends inside a time limit.

    python bench/vlm_ttft_pairs.py --official benchmark.py --model-path M \\
        --dataset-path D [--num-samples 6] [--pairs 8] [--answer-cap 16] --out DIR
    python bench/vlm_ttft_pairs.py --simulate   # coverage of the interval (no GPU)
    python bench/vlm_ttft_pairs.py --pool A/pairs.json B/pairs.json   # several calls' pairs

The interval's claim is checked by ``--simulate``: log-ratios drawn around a
true ratio of 1 (normal, and a heavy-tailed Student t with 3 degrees of
freedom), 20,000 simulated experiments per pair count; it prints how often
the 95 % interval misses 1 (the false-difference rate; 5 % is the target).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_WRAPPER = ROOT / "tests" / "fixtures" / "vlm_wrapper"
TIMED_TOKENS = 128  # the official throughput call; calls above it are the untimed answer

# Student t 0.975 quantiles, df = 1..30 (beyond: 1.96 + 2.5/df, within 0.002).
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip

WRAPPER = '''"""The pair's wrapper: the given one, its generate calls timed (bench/vlm_ttft_pairs.py)."""
import atexit
import importlib.util
import json
import os
import time

import torch

_spec = importlib.util.spec_from_file_location("base_wrapper", {src!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
CAP = {cap}  # 0: no cap
CALLS = []  # (max_new_tokens asked, seconds inside generate)
atexit.register(
    lambda: open(os.environ["VLM_CALL_LOG"], "w").write(json.dumps(CALLS))
    if os.environ.get("VLM_CALL_LOG")
    else None
)


class VLMModel(_mod.VLMModel):
    def __init__(self, model_path, *args, **kwargs):
        super().__init__(model_path, *args, **kwargs)
        original = self._model.generate

        def generate(*args, **kwargs):
            asked = kwargs.get("max_new_tokens", 0)
            if CAP and asked > {timed}:
                kwargs["max_new_tokens"] = CAP
            t = time.perf_counter()
            out = original(*args, **kwargs)
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            CALLS.append((asked, time.perf_counter() - t))
            return out

        self._model.generate = generate
'''


def t975(df: int) -> float:
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.5 / df


def ratio_ci(ratios: list[float]) -> dict[str, float | int | None]:
    """Geometric mean of ``ratios`` and its 95 % t interval (on the logs)."""
    logs = [math.log(r) for r in ratios if r > 0]
    n = len(logs)
    if n == 0:
        return {"n": 0, "geomean": None, "low": None, "high": None}
    mean = statistics.fmean(logs)
    if n < 2:
        return {"n": n, "geomean": math.exp(mean), "low": None, "high": None}
    half = t975(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return {"n": n, "geomean": math.exp(mean), "low": math.exp(mean - half),
            "high": math.exp(mean + half)}  # fmt: skip


def simulate(pair_counts: list[int], trials: int = 20_000, seed: int = 7) -> list[dict[str, Any]]:
    """How often the interval misses a true ratio of 1 (it should be about 5 %)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for n in pair_counts:
        for noise in ("normal", "t3"):
            draws = (
                rng.normal(0.0, 0.1, size=(trials, n))
                if noise == "normal"
                else rng.standard_t(3, size=(trials, n)) * 0.1
            )
            mean = draws.mean(axis=1)
            half = t975(n - 1) * draws.std(axis=1, ddof=1) / math.sqrt(n)
            miss = float(np.mean((mean - half > 0) | (mean + half < 0)))
            out.append({"pairs": n, "noise": noise, "false_difference_rate": round(miss, 4)})
    return out


def write_wrapper(folder: Path, base: Path, cap: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    src = str((base / "evaluation_wrapper.py").resolve())
    text = WRAPPER.format(src=src, cap=cap, timed=TIMED_TOKENS)
    (folder / "evaluation_wrapper.py").write_text(text, encoding="utf-8")
    return folder


def run_official(a: argparse.Namespace, wrapper: Path, out: Path) -> dict[str, Any]:
    script = wrapper / "benchmark.py"  # beside the wrapper: it imports evaluation_wrapper
    cmd = [a.python, str(script), "--model-path", str(a.model_path), "--dataset-path",
           str(a.dataset_path), "--output", str(out / "result.json"),
           "--num-samples", str(a.num_samples)]  # fmt: skip
    return _run(cmd, out, wrapper)


def run_harness(a: argparse.Namespace, wrapper: Path, out: Path) -> dict[str, Any]:
    cmd = [a.python, "-m", "harness", "vlm", "run", "--quiet", "--wrapper-dir", str(wrapper),
           "--model-path", str(a.model_path), "--dataset-path", str(a.dataset_path),
           "--num-samples", str(a.num_samples), "--out", str(out), "--python", a.python]  # fmt: skip
    return _run(cmd, out, ROOT)


def _run(cmd: list[str], out: Path, cwd: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "VLM_CALL_LOG": str(out / "calls.json"),
    }
    t = time.perf_counter()
    with (out / "process.log").open("w", encoding="utf-8") as log:
        proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - t
    result = out / "result.json"
    if proc.returncode != 0 or not result.is_file():
        tail = (out / "process.log").read_text(encoding="utf-8", errors="replace")[-600:]
        raise SystemExit(f"{cmd[1]} failed (exit {proc.returncode}): {tail}")
    data = json.loads(result.read_text(encoding="utf-8"))
    return {"wall_s": round(wall, 2), **data["performance"], **inner(out / "calls.json"),
            "answers": [x["prediction"] for x in data["answers"]]}  # fmt: skip


def inner(path: Path) -> dict[str, Any]:
    """The wrapper's own times of the measured calls: generate(1) and generate(128) per sample.

    The official TTFT minus the mean time inside generate(1) is what the timed
    region holds besides the model's call (the two synchronizes, the clock)."""
    if not path.is_file():
        return {}
    calls = json.loads(path.read_text(encoding="utf-8"))
    ttft = [t * 1000 for n, t in calls if n == 1]
    tput = [t * 1000 for n, t in calls if n == TIMED_TOKENS]
    return {
        "inner_ttft_ms": [round(x, 3) for x in ttft],
        "inner_throughput_ms": [round(x, 1) for x in tput],
        "inner_ttft_mean_ms": round(statistics.fmean(ttft), 3) if ttft else None,
    }


def summary(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    def ratios(key: str, first: str | None = None) -> list[float]:
        return [
            p["harness"][key] / p["official"][key]
            for p in pairs
            if p["official"].get(key) and p["harness"].get(key) and first in (None, p["first"])
        ]

    return {
        "pairs": len(pairs),
        "answers_identical": sum(p["answers_identical"] for p in pairs),
        "ttft_ratio": ratio_ci(ratios("avg_ttft_ms")),
        "tok_s_ratio": ratio_ci(ratios("avg_throughput_tokens_per_sec")),
        "ttft_ratio_official_first": ratio_ci(ratios("avg_ttft_ms", "official")),
        "ttft_ratio_harness_first": ratio_ci(ratios("avg_ttft_ms", "harness")),
        "inner_ttft_ratio": ratio_ci(ratios("inner_ttft_mean_ms")),
        "outside_generate_ms": {
            arm: [
                round(p[arm]["avg_ttft_ms"] - p[arm]["inner_ttft_mean_ms"], 3)
                for p in pairs
                if p[arm].get("inner_ttft_mean_ms") and p[arm]["avg_ttft_ms"]
            ]
            for arm in ("official", "harness")
        },
        "ttft_ratios": [round(r, 4) for r in ratios("avg_ttft_ms")],
        "tok_s_ratios": [round(r, 4) for r in ratios("avg_throughput_tokens_per_sec")],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--simulate", action="store_true", help="interval coverage only (no runs)")
    p.add_argument("--pool", type=Path, nargs="+", help="summarise these pairs.json files together")
    p.add_argument("--official", type=Path, help="the organisers' benchmark.py (unmodified)")
    p.add_argument("--wrapper-dir", type=Path, default=DEFAULT_WRAPPER,
                   help="folder of evaluation_wrapper.py (default: the test wrapper)")  # fmt: skip
    p.add_argument("--model-path", type=Path)
    p.add_argument("--dataset-path", type=Path)
    p.add_argument("--num-samples", type=int, default=6, help="rows per process (default: 6)")
    p.add_argument("--pairs", type=int, default=8, help="alternating pairs (default: 8)")
    p.add_argument("--answer-cap", type=int, default=0,
                   help="cap the untimed answer call at N tokens (default: 0, no cap)")  # fmt: skip
    p.add_argument("--deadline-s", type=float, default=0, help="start no pair past this (s)")
    p.add_argument("--python", default=sys.executable, help="interpreter of both processes")
    p.add_argument("--out", type=Path, help="folder of per-process outputs and pairs.json")
    a = p.parse_args()
    if a.pool:
        pooled = [p for f in a.pool for p in json.loads(f.read_text(encoding="utf-8"))["pairs"]]
        print(json.dumps(summary(pooled), indent=1))
        return 0
    if a.simulate:
        rows = simulate([4, 8, 12, 16])
        for row in rows:
            print(json.dumps(row))
        return 0
    if not (a.official and a.model_path and a.dataset_path and a.out):
        p.error("--official, --model-path, --dataset-path and --out are required")
    started = time.perf_counter()
    wrapper = write_wrapper(a.out / "wrapper", a.wrapper_dir, a.answer_cap)
    shutil.copyfile(a.official, wrapper / "benchmark.py")
    pairs: list[dict[str, Any]] = []
    last = 0.0
    for i in range(a.pairs):
        elapsed = time.perf_counter() - started
        if a.deadline_s and pairs and elapsed + last > a.deadline_s:
            break
        t = time.perf_counter()
        first = "official" if i % 2 == 0 else "harness"
        arms = {"official": run_official, "harness": run_harness}
        order = [first, "harness" if first == "official" else "official"]
        got = {name: arms[name](a, wrapper, a.out / f"pair{i}-{name}") for name in order}
        pair = {
            "pair": i,
            "first": first,
            "answers_identical": got["official"].pop("answers") == got["harness"].pop("answers"),
            **got,
        }
        pairs.append(pair)
        last = time.perf_counter() - t
        print(json.dumps(pair), flush=True)
        (a.out / "pairs.json").write_text(
            json.dumps({"pairs": pairs, "summary": summary(pairs)}, indent=2), encoding="utf-8"
        )
    print(json.dumps(summary(pairs)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
