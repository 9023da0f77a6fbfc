"""The landscapes of bench/tune_landscape.py: candidates with known truth (true medians per
bucket, true accuracy per gate), the trap, the near-tie, the crash and the drift; the
true score and whether a candidate truly passes."""

from __future__ import annotations

import itertools
import math
import statistics
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.profiles import Profile
from harness.quality.decide_stats import passes
from harness.tune.space import Choice

PARAMS: dict[str, list[Choice]] = {
    "max_num_seqs": [4, 8, 16, 32],
    "quant": ["bf16", "fp8", "int4"],
    "spec": ["off", "on"],
    "graphs": ["off", "on"],
}
BASELINE: dict[str, Choice] = {"max_num_seqs": 8, "quant": "bf16", "spec": "off", "graphs": "off"}
# documents at the profile's limit 0.1 (the first ceil(0.1 n) of each set; MMLU-Pro per
# subject): the grader's sample sizes
DOCS = {"mmlu_pro": 1209, "ifeval": 55, "gpqa_diamond": 20}
DOC_S = {"mmlu_pro": 1.0, "ifeval": 3.0, "gpqa_diamond": 30.0}  # seconds a document
CONCURRENCY = 8  # the quality harness's requests in flight
SETUP_S = 20.0  # lm-eval's set-up per benchmark
CHECK_S, CHECK_REQUESTS = 30.0, 80  # the required checks
STOP_S = 5.0
Key = tuple[Choice, ...]


def key_of(values: Mapping[str, Choice]) -> Key:
    return tuple(values[k] for k in PARAMS)


@dataclass
class Truth:
    medians: dict[str, float]  # bucket -> true median ms (no drift)
    acc: dict[str, float]  # gate -> true accuracy
    crash: str | None = None  # "start" or "load"
    crash_after: int = 0  # requests served before dying under load
    # --answers fixed: each gate's documents right or wrong, once (temperature 0: the grader
    # and every measurement see these answers)
    sets: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class Landscape:
    seed: int
    cands: dict[Key, Truth]
    sigma: float
    drift_per_h: float
    cold_s: float
    trap: Key
    tie: tuple[Key, Key]


def true_score(profile: Profile, t: Truth) -> float:
    spec = profile.require_latency()
    return statistics.fmean(b.baseline_ms / t.medians[b.name] for b in spec.buckets)


def truly_passes(profile: Profile, t: Truth) -> bool:
    """Fixed answers: the grader's verdict on the set; redrawn: the true accuracy."""
    assert profile.quality is not None
    if t.sets:
        return all(
            passes(float(t.sets[b.name].mean()), b.threshold) for b in profile.quality.benchmarks
        )
    return all(t.acc[b.name] >= b.threshold for b in profile.quality.benchmarks)


def grader_fail_chance(profile: Profile, t: Truth) -> float:
    """The chance the grader's own draw of each set fails a gate (fixed answers: 0 or 1)."""
    assert profile.quality is not None
    if t.sets:
        return 0.0 if truly_passes(profile, t) else 1.0
    ok = 1.0
    for b in profile.quality.benchmarks:
        n = DOCS[b.name]
        need = next(c for c in range(n + 1) if passes(c / n, b.threshold))
        ok *= float(binom.sf(need - 1, n, t.acc[b.name]))
    return 1.0 - ok


def make_landscape(profile: Profile, seed: int, fixed: bool, drift_pct: float) -> Landscape:
    rng = np.random.default_rng(seed)
    spec = profile.require_latency()
    assert profile.quality is not None
    names = [b.name for b in spec.buckets]
    base = {n: rng.uniform(0.9, 1.6) for n in names}
    seq_fx = {v: {n: rng.normal(0, 0.03) for n in names} for v in PARAMS["max_num_seqs"]}
    quant_fx = {"bf16": 1.0, "fp8": rng.uniform(1.15, 1.35), "int4": rng.uniform(1.35, 1.7)}
    spec_fx = rng.uniform(0.9, 1.5)
    graph_fx = rng.uniform(1.0, 1.15)
    gates = {b.name: b for b in profile.quality.benchmarks}
    acc0 = {g: b.baseline + rng.normal(0, 0.005) for g, b in gates.items()}
    loss = {"bf16": (0.0, 0.0), "fp8": (0.0, 0.01), "int4": (0.01, 0.05)}
    cands: dict[Key, Truth] = {}
    for combo in itertools.product(*PARAMS.values()):
        v = dict(zip(PARAMS, combo, strict=True))
        medians = {}
        for b in spec.buckets:
            speed = base[b.name] * math.exp(seq_fx[v["max_num_seqs"]][b.name])
            speed *= quant_fx[str(v["quant"])] * rng.uniform(0.95, 1.05)
            speed *= (spec_fx * rng.uniform(0.95, 1.05)) if v["spec"] == "on" else 1.0
            speed *= graph_fx if v["graphs"] == "on" else 1.0
            speed *= math.exp(rng.normal(0, 0.02))
            medians[b.name] = b.baseline_ms / speed
        lo, hi = loss[str(v["quant"])]
        acc = {g: a - rng.uniform(lo, hi) for g, a in acc0.items()}
        cands[combo] = Truth(medians, acc)
    if fixed:
        for t in cands.values():
            t.sets = {g: rng.random(DOCS[g]) < t.acc[g] for g in gates}
    ranked = sorted(cands, key=lambda k: -true_score(profile, cands[k]))
    trap = ranked[0]
    gate = str(rng.choice(list(gates)))
    below = gates[gate].threshold - rng.uniform(0.01, 0.03)
    cands[trap].acc[gate] = below
    if fixed:  # the set itself 1-3 points under: as many right as that score allows
        n = DOCS[gate]
        right = max(c for c in range(n + 1) if c / n <= below)
        cands[trap].sets[gate] = rng.permutation(np.arange(n) < right)
    good = [k for k in ranked if truly_passes(profile, cands[k])]
    best, runner = good[0], good[1]
    factor = rng.uniform(1.0, 1.01)  # the runner-up within 1 % of the best
    cands[runner].medians = {n: m * factor for n, m in cands[best].medians.items()}
    others = [k for k in cands if k not in (key_of(BASELINE), trap, best, runner)]
    crash = others[int(rng.integers(len(others)))]
    cands[crash].crash = "start" if rng.random() < 0.5 else "load"
    cands[crash].crash_after = int(rng.integers(1, 120))
    return Landscape(
        seed=seed,
        cands=cands,
        sigma=rng.uniform(0.005, 0.03),
        drift_per_h=rng.uniform(-drift_pct, drift_pct) / 100,
        cold_s=rng.uniform(60, 180),
        trap=trap,
        tie=(best, runner),
    )
