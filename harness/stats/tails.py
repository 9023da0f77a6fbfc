"""What a sample can claim about a tail percentile: MLPerf LoadGen's early-stopping rule.

Pure statistics over plain numbers (no I/O, no clocks). The one owner of the
percentile-claim math; the other order-statistic confidence statement, the median's
sequence behind ``--until-ci``, is harness/stats/median_sequence.py. Every kind's
:class:`~harness.stats.summary.Dist` carries its claims.

The rule (LoadGen ``loadgen/early_stopping.cc`` and the rules' "Early Stopping
Criterion"; docs/timing.md, "Tails: what a percentile can claim"). Let X_1..X_n be
independent draws of a latency whose p-quantile is q, and "over" a sample above a
latency. Among n samples, the number over q is at least Binomial(n, 1 - p). LoadGen
asks for ``h`` samples under and ``t`` over with P(Bin(h + t, 1 - p) <= t) <= 1 - c,
c = 99 % (its ``MinPassingQueriesFinder``):

* **A fixed bound** ("p99 <= 800 ms"): with t samples over it out of n, the bound is met
  at confidence c when P(Bin(n, 1 - p) <= t) <= 1 - c. Were the true p-quantile above the
  bound, so few samples over it would happen with probability <= 1 - c. With none over,
  that needs 44 / 90 / 459 samples for p90 / p95 / p99.
* **An estimate**: the largest t with P(Bin(n, 1 - p) <= t) <= 1 - c (LoadGen's loop
  over t with h_min(t) + t <= n, the same number), and the estimate is the t-th largest
  sample (the t - 1 highest discarded). It is at or above q with probability >= c: LoadGen
  counts the estimate itself as one sample over, which makes it one rank more careful
  than the bound check. It needs t >= 1, so 64 / 130 / 662 samples; below that a report
  says "not enough samples".

Both hold for any continuous distribution, but only for independent samples: a drifting
or autocorrelated server can break them (bench/tails.py measures how far).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from math import exp, isfinite, log, log1p

from pydantic import BaseModel

CONFIDENCE = 0.99  # LoadGen's: a claim may be wrong in 1 run of 100
# The percentiles every report prints beside its median, by their report key.
PERCENTILES: dict[str, float] = {"p90": 0.90, "p95": 0.95, "p99": 0.99}


def _logaddexp(a: float, b: float) -> float:
    if a == float("-inf"):
        return b
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + log1p(exp(lo - hi))


def over_allowed(n: int, p: float, confidence: float = CONFIDENCE) -> int:
    """The largest t with P(Bin(n, 1 - p) <= t) <= 1 - confidence; -1 when even t = 0 is
    too many (too few samples for any claim). Exact, in log space (no underflow at large n)."""
    return _over_allowed(n, round(p, 12), round(confidence, 12))


@lru_cache(maxsize=4096)
def _over_allowed(n: int, p: float, confidence: float) -> int:
    if n <= 0 or not 0 < p < 1 or not 0 < confidence < 1:
        return -1
    q = 1 - p  # the chance of one sample over the quantile
    limit = log(1 - confidence)
    lpmf = n * log1p(-q)  # log P(Bin = 0)
    lcdf = float("-inf")
    ratio = log(q) - log1p(-q)
    for k in range(n + 1):
        lcdf = _logaddexp(lcdf, lpmf)
        if lcdf > limit:
            return k - 1
        lpmf += log(n - k) - log(k + 1) + ratio if k < n else 0.0
    return n


def min_passing(t: int, p: float, confidence: float = CONFIDENCE) -> int:
    """LoadGen's ``MinPassingQueriesFinder``: the least h with P(Bin(h + t, 1 - p) <= t)
    <= 1 - confidence, i.e. the samples under a latency that ``t`` samples over it need."""
    h = 0
    step = 1
    while over_allowed(h + t, p, confidence) < t:  # grow, then bisect: allowed rises with n
        h += step
        step *= 2
    lo, hi = max(0, h - step // 2), h
    while lo < hi:
        mid = (lo + hi) // 2
        if over_allowed(mid + t, p, confidence) >= t:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bound_floor(p: float, confidence: float = CONFIDENCE) -> int:
    """The fewest samples that can show a fixed bound met: all of them under it."""
    return min_passing(0, p, confidence)


def estimate_floor(p: float, confidence: float = CONFIDENCE) -> int:
    """The fewest samples that give an estimate: one over (the estimate itself) plus h."""
    return min_passing(1, p, confidence) + 1


class TailClaim(BaseModel):
    """What one percentile of one distribution can claim (a report's ``tails[key]``).

    ``estimate`` is the conservative estimate, an upper bound of the true percentile at
    ``confidence``, None when ``sufficient`` is false (fewer than ``min_samples``).
    ``discarded``: the highest samples LoadGen's estimate sets aside. ``recorded`` is false
    for a claim rebuilt from ``n`` alone (a report written before claims were recorded):
    its floor is known, its estimate is not.
    """

    n: int
    estimate: float | None = None
    sufficient: bool = False
    min_samples: int
    discarded: int = 0
    confidence: float = CONFIDENCE
    recorded: bool = True

    def text(self, unit: str = " ms", spec: str = ",.1f") -> str:
        """How a view says it: the estimate, or why there is none."""
        if self.sufficient and self.estimate is not None:
            return f"≤ {format(self.estimate, spec)}{unit} at {self.confidence:.0%}"
        if self.sufficient:
            return "estimate not recorded"
        return f"not enough samples ({self.n} of {self.min_samples} needed)"


def claim(xs: Sequence[float], p: float, confidence: float = CONFIDENCE) -> TailClaim:
    """The conservative estimate of the ``p``-quantile of ``xs`` (LoadGen's rule)."""
    n = len(xs)
    t = over_allowed(n, p, confidence)
    floor = estimate_floor(p, confidence)
    if t < 1:
        return TailClaim(n=n, min_samples=floor, confidence=confidence)
    s = sorted(xs)
    return TailClaim(
        n=n,
        estimate=float(s[n - t]),
        sufficient=True,
        min_samples=floor,
        discarded=t - 1,
        confidence=confidence,
    )


def unrecorded(n: int, p: float, confidence: float = CONFIDENCE) -> TailClaim:
    """The claim of a distribution known by its size only (an older report)."""
    floor = estimate_floor(p, confidence)
    return TailClaim(
        n=n, min_samples=floor, sufficient=n >= floor, confidence=confidence, recorded=False
    )


def claims(xs: Sequence[float], confidence: float = CONFIDENCE) -> dict[str, TailClaim]:
    """Every reported percentile's claim, by report key (``p90``, ``p95``, ``p99``)."""
    return {key: claim(xs, p, confidence) for key, p in PERCENTILES.items()}


class BoundCheck(BaseModel):
    """A fixed bound on a percentile ("p99 <= 800 ms") checked LoadGen's way."""

    p: float
    bound: float
    n: int
    over: int  # samples above the bound
    allowed: int  # the most samples over it that n samples may hold (-1: none can show it)
    met: bool
    min_samples: int  # the fewest samples that can show it (all under it)
    confidence: float = CONFIDENCE

    @property
    def why(self) -> str:
        return self.text()

    def text(self, unit: str = "") -> str:
        """Met or not, and why, in words; ``unit`` follows the bound (`` ms``)."""
        pct, bound = f"p{self.p * 100:g}", f"{self.bound:g}{unit}"
        if self.met:
            return (
                f"{pct} ≤ {bound} shown at {self.confidence:.0%}: {self.over} of "
                f"{self.n} samples over it, {self.allowed} allowed"
            )
        if self.n < self.min_samples:
            return (
                f"{pct} ≤ {bound} needs ≥ {self.min_samples} samples with none over; "
                f"{self.n} measured"
            )
        return (
            f"{pct} ≤ {bound} not shown at {self.confidence:.0%}: {self.over} of "
            f"{self.n} samples over it, at most {max(self.allowed, 0)} allowed"
        )


def check_bound(
    xs: Sequence[float], p: float, bound: float, confidence: float = CONFIDENCE
) -> BoundCheck:
    """Is the ``p``-quantile of what ``xs`` samples at most ``bound``, at ``confidence``?"""
    over = sum(1 for x in xs if not (isfinite(x) and x <= bound))
    allowed = over_allowed(len(xs), p, confidence)
    return BoundCheck(
        p=p,
        bound=bound,
        n=len(xs),
        over=over,
        allowed=allowed,
        met=over <= allowed,
        min_samples=bound_floor(p, confidence),
        confidence=confidence,
    )
