"""Coverage of each percentile claim (harness/stats/tails.py): the empirical p90/p95/p99 against
LoadGen's conservative estimate and its fixed-bound check, over many simulated runs.

For each shape, run size n (10, 50, 100, 500, 1000) and percentile, ``--runs`` simulated
runs (latencies in ms); for each run:

- ``empirical``: numpy's interpolated percentile, what every report printed alone. It
  *misses* when it claims a tail lower than the truth (the true percentile is above it).
- ``estimate``: the conservative estimate at 99 % (the t-th largest sample, LoadGen's
  rule); ``claims`` is the share of runs with enough samples for one (below the floor
  64 / 130 / 662 there is none: "not enough samples", which cannot miss); ``miss`` is the
  share of claiming runs whose estimate is under the truth (goal: <= 1 % wherever the
  samples are independent; its Wilson 95 % interval beside it).
- ``bound``: the fixed-bound check on a bound just under the truth (truth / 1.001: the
  claim "p <= bound" is false), the share of runs that call it met (goal: <= 1 %).

Shapes and their truths (the percentile each claim is about): ``lognormal`` (median 100
ms, sigma 0.5), ``stragglers`` (95 % around 100 ms, 5 % around 500 ms), ``two-modes``
(half at 100 ms, half at 300 ms) are i.i.d.: the quantile of the one distribution,
exact (the mixture's CDF inverted by bisection). ``drifting``: a server that slows by
half over the run (run i of n at 1 + 0.5 i / n times a lognormal draw): independent, not
identically distributed; the truth is the quantile of the run's marginal (its
distribution over the whole run). ``autocorr``: log-latency an AR(1) with phi 0.9 and
the lognormal's marginal (sigma 0.5), so the truth is the lognormal's and only
independence fails: a run holds fewer independent samples than it counts.

A second table checks ``--until-ci-at``'s anytime intervals (harness/latency/
quantile_sequence.py): for p90 / p95 / p99 with caps of 200 / 400 / 1,000 runs, the share
of ``--sequences`` simulated sequences whose interval missed the true percentile at ANY
look from the first interval to the cap (the promise: at most 4.5 %, so 95 % at any
stopping time), beside the exact probability the boundary computed and its first look.

Usage: .venv/bin/python bench/tails.py [--runs 20000] [--seed 0] [--json | --markdown]
(~15 s of CPU at the defaults.)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np
from rich.console import Console
from rich.table import Table

from harness.stats.intervals import wilson_interval
from harness.stats.quantile_sequence import quantile_boundary
from harness.stats.tails import PERCENTILES, estimate_floor, over_allowed

SIZES = (10, 50, 100, 500, 1000)
MU, SIGMA = math.log(100.0), 0.5
DRIFT = 0.5  # the drifting server is this much slower at the run's end than at its start
PHI = 0.9  # the autocorrelated server's AR(1) coefficient, in log space
STD = NormalDist()

Draw = Callable[[np.random.Generator, int, int], np.ndarray]  # (rng, runs, n) -> runs x n


def _ln_cdf(x: float, mu: float, sigma: float) -> float:
    return STD.cdf((math.log(x) - mu) / sigma) if x > 0 else 0.0


def _invert(cdf: Callable[[float], float], p: float) -> float:
    lo, hi = 1e-3, 1e6
    for _ in range(200):  # bisection in log space
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return math.sqrt(lo * hi)


def _lognormal(rng: np.random.Generator, runs: int, n: int) -> np.ndarray:
    return np.exp(rng.normal(MU, SIGMA, size=(runs, n)))


def _mixture(parts: list[tuple[float, float, float]]) -> tuple[Draw, Callable[[float], float]]:
    """(weight, median ms, sigma) parts: a sampler and the exact CDF."""
    weights = np.array([w for w, _, _ in parts])

    def draw(rng: np.random.Generator, runs: int, n: int) -> np.ndarray:
        which = rng.choice(len(parts), size=(runs, n), p=weights)
        mus = np.log(np.array([m for _, m, _ in parts]))[which]
        sigmas = np.array([s for _, _, s in parts])[which]
        return np.exp(rng.normal(mus, sigmas))

    def cdf(x: float) -> float:
        return sum(w * _ln_cdf(x, math.log(m), s) for w, m, s in parts)

    return draw, cdf


def _drifting(rng: np.random.Generator, runs: int, n: int) -> np.ndarray:
    slow = 1 + DRIFT * np.arange(n) / n
    return _lognormal(rng, runs, n) * slow


def _drift_cdf(x: float) -> float:  # the marginal over the run: the slowdown uniform in [0, DRIFT)
    k = 400
    return sum(_ln_cdf(x / (1 + DRIFT * (j + 0.5) / k), MU, SIGMA) for j in range(k)) / k


def _autocorr(rng: np.random.Generator, runs: int, n: int) -> np.ndarray:
    z = np.empty((runs, n))
    z[:, 0] = rng.normal(size=runs)
    scale = math.sqrt(1 - PHI * PHI)  # keeps the marginal N(0, 1)
    for i in range(1, n):
        z[:, i] = PHI * z[:, i - 1] + scale * rng.normal(size=runs)
    return np.exp(MU + SIGMA * z)


def shapes() -> dict[str, tuple[Draw, Callable[[float], float]]]:
    def ln_cdf(x: float) -> float:
        return _ln_cdf(x, MU, SIGMA)

    return {
        "lognormal": (_lognormal, ln_cdf),
        "stragglers": _mixture([(0.95, 100.0, 0.2), (0.05, 500.0, 0.3)]),
        "two-modes": _mixture([(0.5, 100.0, 0.1), (0.5, 300.0, 0.1)]),
        "drifting": (_drifting, _drift_cdf),
        "autocorr": (_autocorr, ln_cdf),
    }


@dataclass(frozen=True)
class Row:
    shape: str
    n: int
    pct: str
    truth_ms: float
    empirical_miss: float
    claims: float  # share of runs with an estimate
    estimate_miss: float | None  # among them; None: no run had enough samples
    estimate_miss_hi: float | None  # Wilson 95 % upper bound
    bound_false_pass: float  # the fixed-bound check met on a bound just under the truth


def measure(draw: Draw, truth: dict[str, float], n: int, runs: int, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed)
    x = np.sort(draw(rng, runs, n), axis=1)
    out = []
    for key, p in PERCENTILES.items():
        q = truth[key]
        emp = np.percentile(x, p * 100, axis=1)
        t = over_allowed(n, p)
        if t >= 1:
            misses = int((x[:, n - t] < q).sum())
            ci = wilson_interval(misses, runs)
            miss, hi = misses / runs, (ci[1] if ci else None)
        else:
            miss = hi = None
        over = (x > q / 1.001).sum(axis=1)
        out.append(
            Row(
                shape="",
                n=n,
                pct=key,
                truth_ms=q,
                empirical_miss=float((emp < q).mean()),
                claims=1.0 if t >= 1 else 0.0,
                estimate_miss=miss,
                estimate_miss_hi=hi,
                bound_false_pass=float((over <= t).mean()) if t >= 0 else 0.0,
            )
        )
    return out


ANYTIME_CAPS = {"p90": 200, "p95": 400, "p99": 1000}


@dataclass(frozen=True)
class AnytimeRow:
    shape: str
    pct: str
    cap: int
    first_look: int | None
    exact_miss: float  # the boundary's computed P(any look misses), i.i.d.
    simulated_miss: float
    simulated_miss_hi: float | None


def anytime(
    name: str, draw: Draw, truth: dict[str, float], runs: int, seed: int
) -> list[AnytimeRow]:
    """Every look's interval [X_(l), X_(u)] covers the truth exactly when l <= S_n < u,
    S_n the samples under it among the first n: counted, not sorted."""
    rng = np.random.default_rng(seed)
    out = []
    for key, cap in ANYTIME_CAPS.items():
        b = quantile_boundary(cap, PERCENTILES[key])
        below = np.cumsum(draw(rng, runs, cap) < truth[key], axis=1)  # S_n, n = 1..cap
        missed = np.zeros(runs, dtype=bool)
        for n, (lo, hi) in b.ranks.items():
            if lo:
                s_n = below[:, n - 1]
                missed |= (s_n < lo) | (s_n >= hi)
        k = int(missed.sum())
        ci = wilson_interval(k, runs)
        out.append(AnytimeRow(name, key, cap, b.first, b.miss, k / runs, ci[1] if ci else None))
    return out


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1%}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20000, help="simulated runs per shape and n")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="the table as markdown on stdout")
    a = ap.parse_args()
    started = time.perf_counter()
    rows: list[Row] = []
    for s, (name, (draw, cdf)) in enumerate(shapes().items()):
        truth = {k: _invert(cdf, p) for k, p in PERCENTILES.items()}
        for n in SIZES:
            for r in measure(draw, truth, n, a.runs, a.seed * 1000 + s * 10 + SIZES.index(n)):
                rows.append(Row(**{**asdict(r), "shape": name}))
    table = Table(
        title=f"percentile claims over {a.runs:,} runs per row: how often each is under the "
        "truth (estimate and bound at 99 %: goal <= 1 %)",
        title_justify="left",
    )
    for col in ("shape", "n", "pct", "truth ms", "empirical miss", "estimate", "estimate miss"):
        table.add_column(col, justify="left" if col in ("shape", "pct") else "right")
    table.add_column("bound false pass", justify="right")
    for r in rows:
        est = (
            f"{_pct(r.estimate_miss)} (≤ {_pct(r.estimate_miss_hi)})"
            if r.estimate_miss is not None
            else f"none (n < {estimate_floor(PERCENTILES[r.pct])})"
        )
        table.add_row(
            r.shape,
            str(r.n),
            r.pct,
            f"{r.truth_ms:,.1f}",
            _pct(r.empirical_miss),
            "yes" if r.claims else "no",
            est,
            _pct(r.bound_false_pass),
        )
    console = Console(stderr=True, width=160)
    console.print(table)
    seqs = max(a.runs // 5, 1)
    any_rows = [
        r
        for s, (name, (draw, cdf)) in enumerate(shapes().items())
        for r in anytime(
            name, draw, {k: _invert(cdf, p) for k, p in PERCENTILES.items()}, seqs, a.seed + 7 + s
        )
    ]
    t2 = Table(
        title=f"--until-ci-at: share of {seqs:,} sequences whose interval missed the truth at "
        "any look (promise: <= 4.5 %)",
        title_justify="left",
    )
    for col in ("shape", "pct", "cap", "first look", "exact (i.i.d.)", "simulated (95 % ≤)"):
        t2.add_column(col, justify="left" if col in ("shape", "pct") else "right")
    for r in any_rows:
        t2.add_row(
            r.shape,
            r.pct,
            str(r.cap),
            str(r.first_look),
            _pct(r.exact_miss),
            f"{_pct(r.simulated_miss)} (≤ {_pct(r.simulated_miss_hi)})",
        )
    console.print(t2)
    if a.markdown:
        print(
            "| shape | n | pct | truth ms | empirical miss | estimate miss (95 % ≤) | bound false pass |"
        )
        print("|---|---:|---|---:|---:|---:|---:|")
        for r in rows:
            est = (
                f"{_pct(r.estimate_miss)} (≤ {_pct(r.estimate_miss_hi)})"
                if r.estimate_miss is not None
                else f"no estimate (n < {estimate_floor(PERCENTILES[r.pct])})"
            )
            print(
                f"| {r.shape} | {r.n} | {r.pct} | {r.truth_ms:,.1f} | {_pct(r.empirical_miss)} "
                f"| {est} | {_pct(r.bound_false_pass)} |"
            )
    wall = time.perf_counter() - started
    print(f"{wall:.1f} s", file=sys.stderr)
    if a.markdown:
        print()
        print("| shape | pct | cap | first look | exact miss (i.i.d.) | simulated miss (95 % ≤) |")
        print("|---|---|---:|---:|---:|---:|")
        for r in any_rows:
            print(
                f"| {r.shape} | {r.pct} | {r.cap} | {r.first_look} | {_pct(r.exact_miss)} | "
                f"{_pct(r.simulated_miss)} (≤ {_pct(r.simulated_miss_hi)}) |"
            )
    if a.json:
        out = {"runs": a.runs, "seed": a.seed, "rows": [asdict(r) for r in rows]}
        print(json.dumps({**out, "anytime": [asdict(r) for r in any_rows]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
