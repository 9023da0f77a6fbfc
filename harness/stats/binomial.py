"""The binomial distribution, exactly: pure functions over plain numbers.

The one owner of a binomial CDF or tail; the median's confidence sequence, the exact
McNemar test, the quantile sequences and the AICAS blind-row threshold read it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


def cdf_half(n: int, k: int) -> float:
    """P(Bin(n, 1/2) <= k), exactly (``n`` up to a few hundred)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def upper_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


def pmf(n: int, q: float) -> np.ndarray:
    """P(Bin(n, q) = k) for k = 0..n, in log space (no underflow at large n)."""
    k = np.arange(n + 1)
    lg = np.array([0.0, *np.cumsum(np.log(np.arange(1, n + 1)))])  # log k!
    logp = lg[n] - lg - lg[::-1] + k * np.log(q) + (n - k) * np.log1p(-q)
    return np.exp(logp)


@lru_cache(maxsize=4096)
def cdf_and_sf(n: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """(P(S <= k), P(S >= k)) for k = 0..n, S ~ Bin(n, q)."""
    p = pmf(n, q)
    return np.cumsum(p), np.cumsum(p[::-1])[::-1]


def mcnemar_exact(b_only: int, a_only: int) -> float:
    """Exact McNemar p-value: two-sided binomial test of the discordant pairs at 1/2.

    ``b_only``: items right in B and wrong in A; ``a_only``: the reverse.
    No discordant pair gives p = 1.
    """
    n = b_only + a_only
    if n == 0:
        return 1.0
    return min(1.0, 2 * cdf_half(n, min(b_only, a_only)))
