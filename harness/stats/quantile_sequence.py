"""A confidence sequence for any quantile: ``--until-ci PCT --until-ci-at p90``.

Pure statistics over plain numbers. The median's sequence (harness/stats/median_sequence.py)
is the case q = 1/2 of this one, and its proof carries over word for word (docs/timing.md,
"Stopping early on a percentile"). Let X_1, X_2, … be independent draws of a continuous
latency whose q-quantile is m, and S_n the number of the first n below m: S_n is a
random walk with steps Bernoulli(q), whatever the distribution, and the order-statistic
interval [X_(l), X_(u)] contains m exactly when l <= S_n <= u - 1. "Some look's interval
misses m" is "the walk leaves a band of ranks at some look", whose probability dynamic
programming over the walk computes exactly. :func:`quantile_boundary` takes, at every look
n from the floor to the cap, the fixed-n ranks of one nominal level (a/2 in each tail of
Binomial(n, q)) and the largest nominal level whose exact probability of ANY miss is at
most the budget (4.5 %, as the median's). Every interval then covers m at once with
probability >= 95.5 %, so the interval at any stopping time does too. This is the exact,
finite-horizon version of the quantile confidence sequences of Howard & Ramdas
("Sequential estimation of quantiles with applications to A/B-testing and best-arm
identification", Bernoulli 2021), which bound the same walk analytically for all n.

A tail needs many samples before it has an interval at all: the upper rank must be a
sample (u <= n), so P(Bin(n, q) = n) = q^n <= a/2. For p99 that is n >= 527 at the
levels a cap of 1,000 allows: **a p99 can never stop within the grader's 50 runs**, nor a
p95 (n >= 104 at best); a p90 needs about 50 even for its first interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from harness.stats.binomial import cdf_and_sf
from harness.stats.median_sequence import ALPHA, BUDGET, MIN_RUNS, looks


def fixed_ranks(n: int, q: float, level: float) -> tuple[int, int]:
    """(l, u): l the largest rank with P(Bin(n, q) <= l - 1) <= level / 2, u the smallest
    with P(Bin(n, q) >= u) <= level / 2; (0, 0) when either is missing (no interval)."""
    if n < 1:
        return 0, 0
    below, above = cdf_and_sf(n, q)
    half = level / 2 * (1 + 1e-12)
    lo = int(np.count_nonzero(below[:n] <= half))  # below rises: l - 1 = the last k under
    hi = n + 1 - int(np.count_nonzero(above[1:] <= half))  # above falls: a suffix is under
    return (lo, hi) if 0 < lo < hi <= n else (0, 0)


def miss_probability(ranks: dict[int, tuple[int, int]], cap: int, q: float) -> float:
    """P(some look n has S_n < l_n or S_n >= u_n), the walk stepping up with probability q."""
    alive = np.array([1.0])
    missed = 0.0
    for n in range(1, cap + 1):
        nxt = np.zeros(n + 1)
        nxt[:-1] += alive * (1 - q)
        nxt[1:] += alive * q
        lo, hi = ranks.get(n, (0, 0))
        if lo > 0:
            missed += float(nxt[:lo].sum() + nxt[hi:].sum())
            nxt[:lo] = 0.0
            nxt[hi:] = 0.0
        alive = nxt
    return missed


@dataclass(frozen=True)
class QuantileBoundary:
    """The ranks of the sequence for the ``q``-quantile: look n's interval is [X_(l), X_(u)]."""

    q: float
    alpha: float
    budget: float
    floor: int
    cap: int
    nominal: float
    miss: float
    ranks: dict[int, tuple[int, int]]

    def interval_ranks(self, n: int) -> tuple[int, int]:
        return self.ranks.get(n, (0, 0))

    @property
    def first(self) -> int | None:
        """The first look with an interval (None: no look up to the cap has one)."""
        return next((n for n in sorted(self.ranks) if self.ranks[n][0] > 0), None)


@lru_cache(maxsize=64)
def quantile_boundary(
    cap: int, q: float, floor: int = MIN_RUNS, alpha: float = ALPHA, budget: float = BUDGET
) -> QuantileBoundary:
    """One nominal level for every look ``floor..cap``, the largest whose exact miss
    probability is <= ``budget`` (bisected: the miss grows with the level)."""
    budget = min(budget, alpha)
    at = looks(floor, cap)

    def ranks_at(level: float) -> dict[int, tuple[int, int]]:
        return {n: fixed_ranks(n, q, level) for n in at}

    best = (0.0, dict.fromkeys(at, (0, 0)), 0.0)
    lo, hi = 0.0, budget
    for _ in range(40):
        mid = (lo + hi) / 2
        ranks = ranks_at(mid)
        miss = miss_probability(ranks, cap, q)
        if miss <= budget:
            best, lo = (mid, ranks, miss), mid
        else:
            hi = mid
    level, ranks, miss = best
    return QuantileBoundary(
        q=q, alpha=alpha, budget=budget, floor=floor, cap=cap, nominal=level, miss=miss, ranks=ranks
    )


@dataclass(frozen=True)
class QuantileLook:
    """The sequence's interval after ``n`` timed successes, and whether it is narrow enough."""

    n: int
    value: float | None  # the sample quantile (numpy's interpolation, as the reports')
    lo: float | None
    hi: float | None
    half_width_pct: float | None
    narrow: bool
    at: str = ""  # the statistic, ``p90``: what every display of this interval names


def quantile_name(q: float) -> str:
    """``p90`` for 0.9: the report key of a percentile (harness/stats/tails.py ``PERCENTILES``)."""
    return f"p{q * 100:g}"


def quantile_look(xs: Sequence[float], bound: QuantileBoundary, pct: float) -> QuantileLook:
    """The interval of the ``q``-quantile of ``xs`` (the first n successes) at look n."""
    n = len(xs)
    value = float(np.percentile(np.asarray(xs, dtype=float), bound.q * 100)) if n else None
    lo_rank, hi_rank = bound.interval_ranks(n)
    at = quantile_name(bound.q)
    if value is None or lo_rank == 0:
        return QuantileLook(
            n=n, value=value, lo=None, hi=None, half_width_pct=None, narrow=False, at=at
        )
    s = sorted(xs)
    lo, hi = s[lo_rank - 1], s[hi_rank - 1]
    half = max(value - lo, hi - value) / value * 100 if value > 0 else None
    narrow = half is not None and half <= pct
    return QuantileLook(n=n, value=value, lo=lo, hi=hi, half_width_pct=half, narrow=narrow, at=at)


def lower_rank(n: int, q: float, level: float) -> int:
    """The largest rank l with P(Bin(n, q) <= l - 1) <= ``level``: X_(l) is at or under the
    ``q``-quantile unless fewer than l of the n samples are below it (0: no such rank)."""
    if n < 1:
        return 0
    below, _ = cdf_and_sf(n, q)
    return int(np.count_nonzero(below[:n] <= level * (1 + 1e-12)))


@dataclass(frozen=True)
class LowerBoundary:
    """A one-sided sequence: at look n, X_(rank(n)) is a lower bound of the ``q``-quantile,
    at every look from the floor to the cap at once with probability >= 1 - ``miss``."""

    q: float
    alpha: float
    floor: int
    cap: int
    nominal: float
    miss: float
    ranks: dict[int, int]

    def rank(self, n: int) -> int:
        return self.ranks.get(n, 0)


@lru_cache(maxsize=64)
def lower_boundary(
    cap: int, q: float, floor: int = MIN_RUNS, alpha: float = ALPHA, budget: float = BUDGET
) -> LowerBoundary:
    """The lower ends alone (a tail SLO's "certainly broken", harness/tune/trial/tail_race.py):
    one nominal level for every look, the largest whose exact probability that ANY look's
    lower end is above the quantile (the walk below ``l_n``) is <= ``budget``. One-sided,
    so the whole budget goes to the one tail that can stop a trial."""
    budget = min(budget, alpha)
    at = looks(floor, cap)

    def ranks_at(level: float) -> dict[int, int]:
        return {n: lower_rank(n, q, level) for n in at}

    best = (0.0, dict.fromkeys(at, 0), 0.0)
    lo, hi = 0.0, budget
    for _ in range(40):
        mid = (lo + hi) / 2
        ranks = ranks_at(mid)
        # no upper end: u = n + 1 is past the samples, so only the lower side can miss
        miss = miss_probability({n: (r, n + 1) for n, r in ranks.items()}, cap, q)
        if miss <= budget:
            best, lo = (mid, ranks, miss), mid
        else:
            hi = mid
    level, ranks, miss = best
    return LowerBoundary(
        q=q, alpha=alpha, floor=floor, cap=cap, nominal=level, miss=miss, ranks=ranks
    )
