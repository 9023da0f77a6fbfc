"""Coverage of ``harness latency --until-ci``'s stopping rule, against naive stopping.

Thousands of simulated bucket sequences (timed latencies in ms, true median near
1,000 ms) from several shapes; each sequence is stopped by a rule that looks after
every timed request from the floor (10) to the cap (the profile's 50 runs) and
stops when the 95 % interval of the median is within ±PCT % of the sample median.
For each shape, PCT and rule the table prints:

- coverage: share of sequences whose interval AT THE STOP contains the true median
  (must be >= 95 %);
- all looks: share whose interval contained it at EVERY look up to the cap (what a
  user watching the live interval relies on; the anytime guarantee is this one);
- runs: mean timed runs used, and the share of sequences stopped before the cap.

Rules:
- ``sequence``: harness's confidence sequence (harness/stats/median_sequence.py), order-
  statistic ranks from one nominal level whose exact probability that ANY look misses
  is <= 4.5 % (the looks' error budget, under the 5 % of a 95 % promise for a margin);
- ``bonferroni``: the same looks, each at 5 % / number of looks (the textbook error
  budget; valid, wider);
- ``naive``: the fixed-n 95 % order-statistic interval, recomputed after every request
  with no correction (how AIPerf's ci_width convergence treats its t-interval);
- ``full``: no stopping, the fixed-n 95 % interval at the cap (the grader's run count).

A second table gives the sequence rule's mean runs used against the noise of a steady
(gaussian) server, SD 0.25-2 % of the median: where the "a third of 50 runs" goal holds.

True medians (the number each interval should contain): tight, lognormal and
stragglers are i.i.d., so the median of the one distribution. Drift's runs are not
identically distributed: its true median is the median of the marginal distribution
over the profile's 50 runs (the mixture of the 50 runs' distributions, equal weights),
the number the grader's 50-run median estimates. An early stop sees only the first
runs, so a drift fast enough to move the median by more than the interval's width
before the cap is outside any stopping rule's reach: ``drift-fast`` shows that limit.

Usage: .venv/bin/python bench/until_ci.py [--sequences 20000] [--pct 1,2] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.stats.median_sequence import MIN_RUNS, boundary, fixed_rank, look, looks

CAP = 50
BASE = 1000.0
OUTSIDE = ("drift-1%", "drift-4%")  # drifts faster than the rule's assumption allows
NOISE_LEVELS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)  # SD in % of the median


def _phi(z: float) -> float:
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def _solve(cdf: Callable[[float], float], lo: float, hi: float) -> float:
    """The median of a continuous distribution: cdf(m) = 1/2, by bisection."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if cdf(mid) < 0.5:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class Shape:
    name: str
    what: str
    draw: Callable[[np.random.Generator, int], np.ndarray]  # (rng, sequences) -> (R, CAP)
    true_median: float


def shapes() -> list[Shape]:
    sd = 0.005 * BASE  # 0.5 % gaussian noise, the steady server

    def tight(rng: np.random.Generator, r: int) -> np.ndarray:
        return rng.normal(BASE, sd, size=(r, CAP))

    # a floor plus a lognormal excess (median 10 ms, sigma 1): a heavy right tail
    mu, sig = math.log(10.0), 1.0

    def lognormal(rng: np.random.Generator, r: int) -> np.ndarray:
        return BASE + np.exp(rng.normal(mu, sig, size=(r, CAP)))

    def stragglers(rng: np.random.Generator, r: int) -> np.ndarray:
        x = rng.normal(BASE, sd, size=(r, CAP))
        slow = rng.random(size=(r, CAP)) < 0.05
        return np.where(slow, BASE * rng.uniform(1.5, 3.0, size=(r, CAP)), x)

    def strag_cdf(m: float) -> float:
        u = min(max((m / BASE - 1.5) / 1.5, 0.0), 1.0)
        return 0.95 * _phi((m - BASE) / sd) + 0.05 * u

    def drift_of(total: float) -> tuple[Callable[[np.random.Generator, int], np.ndarray], float]:
        means = BASE * (1 + total * np.arange(CAP) / (CAP - 1))

        def draw(rng: np.random.Generator, r: int) -> np.ndarray:
            return rng.normal(means, sd, size=(r, CAP))

        def cdf(m: float) -> float:  # the marginal over the 50 runs
            return float(np.mean([_phi((m - mu_i) / sd) for mu_i in means]))

        return draw, _solve(cdf, BASE * 0.9, BASE * 1.2)

    drift, drift_m = drift_of(0.005)
    drift1, drift1_m = drift_of(0.01)
    fast, fast_m = drift_of(0.04)

    def two_modes(rng: np.random.Generator, r: int) -> np.ndarray:
        slow = rng.random(size=(r, CAP)) < 0.5
        return rng.normal(np.where(slow, BASE * 1.03, BASE), 0.002 * BASE)

    return [
        Shape("tight", "N(1000, 5): 0.5 % gaussian noise", tight, BASE),
        Shape(
            "lognormal",
            "1000 + LogNormal(ln 10, 1): heavy right tail",
            lognormal,
            BASE + math.exp(mu),
        ),
        Shape(
            "stragglers",
            "95 % N(1000, 5), 5 % 1000 x U(1.5, 3)",
            stragglers,
            _solve(strag_cdf, BASE * 0.9, BASE * 1.5),
        ),
        Shape(
            "two-modes",
            "50 % N(1000, 2), 50 % N(1030, 2): two replicas 3 % apart",
            two_modes,
            BASE * 1.015,
        ),
        Shape("drift", "N(1000 (1 + 0.5 % i/49), 5): +0.5 % over 50 runs", drift, drift_m),
        Shape("drift-1%", "N(1000 (1 + 1 % i/49), 5): outside the guarantee", drift1, drift1_m),
        Shape("drift-4%", "N(1000 (1 + 4 % i/49), 5): outside the guarantee", fast, fast_m),
    ]


def rule_ranks(rule: str) -> dict[int, int]:
    at = looks(MIN_RUNS, CAP)
    if rule == "sequence":
        return dict(boundary(CAP, MIN_RUNS).ranks)
    if rule == "bonferroni":
        return {n: fixed_rank(n, 0.05 / len(at)) for n in at}
    if rule == "naive":
        return {n: fixed_rank(n, 0.05) for n in at}
    if rule == "full":
        return {CAP: fixed_rank(CAP, 0.05)}
    raise ValueError(rule)


@dataclass
class Row:
    shape: str
    pct: float
    rule: str
    sequences: int
    coverage: float
    all_looks: float
    mean_runs: float
    stopped_early: float
    true_median: float


def run_rule(x: np.ndarray, ranks: dict[int, int], pct: float, m: float) -> tuple[float, ...]:
    """Vectorised: (coverage at the stop, coverage at every look, mean runs, share early)."""
    r = x.shape[0]
    stopped = np.zeros(r, dtype=bool)
    runs = np.full(r, CAP)
    covered = np.zeros(r, dtype=bool)
    always = np.ones(r, dtype=bool)
    for n in sorted(ranks):
        lo_rank = ranks[n]
        if lo_rank == 0:
            continue
        s = np.sort(x[:, :n], axis=1)
        med = np.median(s, axis=1)
        lo, hi = s[:, lo_rank - 1], s[:, n - lo_rank]
        inside = (lo <= m) & (m <= hi)
        always &= inside
        half = np.maximum(med - lo, hi - med) / med * 100
        now = ~stopped & ((half <= pct) | (n == CAP))
        covered[now] = inside[now]
        runs[now] = n
        stopped |= now
    return (
        float(covered.mean()),
        float(always.mean()),
        float(runs.mean()),
        float((runs < CAP).mean()),
    )


def check_against_module(x: np.ndarray, pct: float) -> None:
    """The vectorised rule stops where harness's own ``look`` does (first 50 sequences)."""
    bound = boundary(CAP, MIN_RUNS)
    for row in x[:50]:
        n_stop = CAP
        for n in looks(MIN_RUNS, CAP):
            if look(list(row[:n]), bound, pct).narrow:
                n_stop = n
                break
        _, _, runs, _ = run_rule(row[None, :], bound.ranks, pct, 0.0)
        assert int(runs) == n_stop, (n_stop, runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--sequences", type=int, default=20000, help="sequences per shape (20000)")
    ap.add_argument("--pct", default="1,2", help="comma list of PCT targets (1,2)")
    ap.add_argument("--seed", type=int, default=0, help="RNG seed (0)")
    ap.add_argument("--json", action="store_true", help="the rows as JSON on stdout")
    a = ap.parse_args()
    pcts = [float(p) for p in a.pct.split(",") if p.strip()]
    rng = np.random.default_rng(a.seed)
    bound = boundary(CAP, MIN_RUNS)
    rows: list[Row] = []
    for shape in shapes():
        x = shape.draw(rng, a.sequences)
        for pct in pcts:
            check_against_module(x, pct)
            for rule in ("sequence", "bonferroni", "naive", "full"):
                cov, always, runs, early = run_rule(x, rule_ranks(rule), pct, shape.true_median)
                rows.append(
                    Row(
                        shape.name,
                        pct,
                        rule,
                        a.sequences,
                        cov,
                        always,
                        runs,
                        early,
                        shape.true_median,
                    )
                )
    noise: list[Row] = []
    for sd_pct in NOISE_LEVELS:  # runs used against the noise of a steady (gaussian) server
        x = rng.normal(BASE, sd_pct / 100 * BASE, size=(a.sequences, CAP))
        for pct in pcts:
            cov, always, runs, early = run_rule(x, rule_ranks("sequence"), pct, BASE)
            noise.append(
                Row(
                    f"N(1000, {sd_pct:g} %)",
                    pct,
                    "sequence",
                    a.sequences,
                    cov,
                    always,
                    runs,
                    early,
                    BASE,
                )
            )
    render(rows, bound.nominal, bound.miss)
    render_noise(noise)
    if a.json:
        out = {"shapes": [asdict(r) for r in rows], "noise": [asdict(r) for r in noise]}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    return 0


def render_noise(rows: list[Row]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="runs used against the noise of a steady server (sequence rule, cap 50)")
    for col in ("noise (SD)", "PCT", "coverage", "mean runs", "stopped early"):
        t.add_column(col, justify="left" if col == "noise (SD)" else "right")
    for r in rows:
        t.add_row(
            r.shape,
            f"{r.pct:g} %",
            f"{r.coverage:.1%}",
            f"{r.mean_runs:.1f}",
            f"{r.stopped_early:.0%}",
        )
    Console(stderr=True).print(t)


def render(rows: list[Row], nominal: float, miss: float) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(stderr=True)
    con.print(
        f"confidence sequence, looks {MIN_RUNS}..{CAP}: nominal per-look level {nominal:.4f}, "
        f"exact P(any look misses) {miss:.4f}"
    )
    for s in shapes():
        con.print(f"  {s.name:11} {s.what}; true median {s.true_median:.2f} ms")
    t = Table(title=f"--until-ci coverage ({rows[0].sequences if rows else 0} sequences per row)")
    for col in ("shape", "PCT", "rule", "coverage", "all looks", "mean runs", "stopped early"):
        t.add_column(col, justify="left" if col in ("shape", "rule") else "right")
    for r in rows:
        se2 = 2 * math.sqrt(r.coverage * (1 - r.coverage) / r.sequences)
        cov = f"{r.coverage:.1%} ± {se2:.1%}"
        if r.coverage + se2 < 0.95:  # below 95 % by more than two standard errors
            cov = f"[red]{cov}[/]"
        t.add_row(
            r.shape + (" *" if r.shape in OUTSIDE else ""),
            f"{r.pct:g} %",
            r.rule,
            cov,
            f"{r.all_looks:.1%}",
            f"{r.mean_runs:.1f}",
            f"{r.stopped_early:.0%}",
        )
    con.print(t)
    con.print(
        "coverage ± two standard errors of the simulation; red: below 95 % by more than that. "
        "* outside the guarantee (the runs are not from one distribution: see the docstring)"
    )


if __name__ == "__main__":
    raise SystemExit(main())
