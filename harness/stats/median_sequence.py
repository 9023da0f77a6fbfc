"""A confidence sequence for a median: an interval that stays valid under optional stopping.

Pure statistics over plain numbers (no I/O, no clocks); ``harness latency --until-ci``
looks at it after every timed request and stops a bucket once it is narrow. The sequence
for any quantile is harness/stats/quantile_sequence.py.

Why it holds (docs/timing.md, "Stopping early: --until-ci"). Let X_1, X_2, … be
independent draws of a continuous latency with median m, and S_n the number of the
first n below m. S_n is a fair binomial random walk whatever the distribution, and
the order-statistic interval [X_(l), X_(n+1-l)] contains m exactly when
l <= S_n <= n - l. So "some look's interval misses m" is "the walk leaves a band of
ranks at some look", an event whose probability is computed exactly by dynamic
programming over the walk. :func:`boundary` picks the ranks l_n for the looks
floor, floor+1, …, cap (one per request) from one nominal per-look level, the
largest whose exact probability of ANY miss is <= BUDGET, 4.5 % (an error budget
spent over a fixed schedule of looks, computed exactly instead of by Bonferroni, and
kept under alpha = 5 % for a margin). Every interval of the sequence then covers m at
once with probability >= 1 - BUDGET > 95 %, so the interval at any stopping time,
chosen however one likes from what was seen, covers m with probability >= 95.5 %
(the 95 % promised, with a margin). No distributional assumption beyond
independence and continuity (ties only make the closed intervals more
conservative). Past ``cap`` there are no looks: the guarantee is for n <= cap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from harness.stats.binomial import cdf_half
from harness.stats.robust import median

ALPHA = 0.05  # 95 % intervals
# The error budget the looks may spend together: the exact probability that any look's
# interval misses is kept at most 4.5 %, below ALPHA, so the promised 95 % holds with a
# margin that a finite simulation can see (bench/until_ci.py: at the full 5 % budget the
# "two modes 3 % apart" shape printed 94.9 % +- 0.3; docs/timing.md).
BUDGET = 0.045
MIN_RUNS = 10  # the floor: no look before this many timed successes


def fixed_rank(n: int, level: float) -> int:
    """The largest rank l >= 1 whose [X_(l), X_(n+1-l)] has coverage >= 1 - level at this
    one n: 2 P(Bin(n, 1/2) <= l - 1) <= level. 0 when even [min, max] falls short."""
    best = 0
    for lo in range(1, n // 2 + 1):
        if 2 * cdf_half(n, lo - 1) <= level:
            best = lo
        else:
            break
    return best


def miss_probability(ranks: dict[int, int], cap: int) -> float:
    """P(some look n in ``ranks`` has S_n < l_n or S_n > n - l_n) for the fair walk up to
    ``cap``: the exact chance that the sequence of intervals misses the median at some
    look. A rank of 0 is a look without an interval (it cannot miss)."""
    alive = [1.0]  # alive[s] = P(S_n = s and no miss so far)
    missed = 0.0
    for n in range(1, cap + 1):
        nxt = [0.0] * (n + 1)
        for s, p in enumerate(alive):
            if p:
                nxt[s] += p / 2
                nxt[s + 1] += p / 2
        lo = ranks.get(n, 0)
        if lo > 0:
            for s in range(n + 1):
                if s < lo or s > n - lo:
                    missed += nxt[s]
                    nxt[s] = 0.0
        alive = nxt
    return missed


@dataclass(frozen=True)
class Boundary:
    """The ranks of the confidence sequence: look n's interval is [X_(l), X_(n+1-l)]."""

    alpha: float  # 1 - the promised confidence (95 %)
    budget: float  # the most the looks may miss together (<= alpha)
    floor: int
    cap: int
    nominal: float  # the per-look level every look's fixed-n rank is taken at
    miss: float  # the exact probability that any look's interval misses (<= budget)
    ranks: dict[int, int]  # look n -> l_n (0: no interval at that n)

    def rank(self, n: int) -> int:
        return self.ranks.get(n, 0)


def looks(floor: int, cap: int) -> list[int]:
    """One look per request from the floor to the cap; just the cap when it is below the floor."""
    if cap < 1:
        return []
    return list(range(max(floor, 1), cap + 1)) if cap > floor else [cap]


@lru_cache(maxsize=64)
def boundary(
    cap: int, floor: int = MIN_RUNS, alpha: float = ALPHA, budget: float = BUDGET
) -> Boundary:
    """The sequence for looks ``floor..cap``: one nominal level for every look, the largest
    (among the levels where some rank changes) whose exact miss probability is <= budget
    (itself <= alpha, the promised 1 - confidence)."""
    budget = min(budget, alpha)
    at = looks(floor, cap)
    candidates = sorted(
        {2 * cdf_half(n, k) for n in at for k in range(n // 2) if 2 * cdf_half(n, k) <= budget}
    )

    def ranks_at(level: float) -> dict[int, int]:
        return {n: fixed_rank(n, level) for n in at}

    best: tuple[float, dict[int, int], float] = (0.0, dict.fromkeys(at, 0), 0.0)
    lo, hi = 0, len(candidates) - 1
    while lo <= hi:  # the miss probability grows with the level: bisect the candidates
        mid = (lo + hi) // 2
        level = candidates[mid] * (1 + 1e-12)  # the rank at exactly this cdf value is taken
        ranks = ranks_at(level)
        miss = miss_probability(ranks, cap)
        if miss <= budget:
            best = (level, ranks, miss)
            lo = mid + 1
        else:
            hi = mid - 1
    level, ranks, miss = best
    return Boundary(
        alpha=alpha, budget=budget, floor=floor, cap=cap, nominal=level, miss=miss, ranks=ranks
    )


@dataclass(frozen=True)
class Look:
    """The sequence's interval after ``n`` timed successes, and whether it is narrow enough."""

    n: int
    median: float | None
    lo: float | None
    hi: float | None
    half_width_pct: float | None  # max(median - lo, hi - median) / median, in %
    narrow: bool

    at = "median"  # the statistic the interval is of (a percentile's look says its own)

    @property
    def value(self) -> float | None:
        return self.median


def look(xs: Sequence[float], bound: Boundary, pct: float) -> Look:
    """The interval of ``xs`` (the first n successes, in order) at look n = len(xs).

    No interval (None bounds) before the floor, or where n is too small for any
    order-statistic interval at the sequence's level."""
    n = len(xs)
    med = median(xs)
    lo_rank = bound.rank(n)
    if med is None or lo_rank == 0:
        return Look(n=n, median=med, lo=None, hi=None, half_width_pct=None, narrow=False)
    s = sorted(xs)
    lo, hi = s[lo_rank - 1], s[n - lo_rank]
    half = max(med - lo, hi - med) / med * 100 if med > 0 else None
    narrow = half is not None and half <= pct
    return Look(n=n, median=med, lo=lo, hi=hi, half_width_pct=half, narrow=narrow)
