"""Intervals: Wilson's for a rate (one z, the exact 95 % normal quantile), the percentile
bootstrap of a median and of the grader's mean speedup, and a rate's standard error.

Percentiles use linear interpolation (numpy's default). Every bootstrap takes a seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from harness.stats.distributions import Z95


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a binomial rate ``p`` measured on ``n`` trials (95 % at the
    default z); None for n <= 0.

    Unlike p ± z·se it stays inside [0, 1] and is not zero-width at 0 or n successes
    (0 / 40 → [0, 8.8 %]): what a calibration bench needs for rare false verdicts, and
    a limited quality run for its score (1 of 1 right: 0.207–1.000).
    """
    if n <= 0:
        return None
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of ``k`` successes in ``n`` trials; None for n <= 0."""
    return wilson(k / n, n, z) if n > 0 else None


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` interval of bootstrap replicates (percentile method)."""
    lo, hi = np.percentile(values, [(1 - level) / 2 * 100, (1 + level) / 2 * 100])
    return float(lo), float(hi)


def bootstrap_medians(xs: Sequence[float], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """``resamples`` medians of ``xs`` resampled with replacement, drawn from ``rng``."""
    a = np.asarray(xs, dtype=float)
    return np.median(a[rng.integers(0, a.size, size=(resamples, a.size))], axis=1)


def bootstrap_ci(
    xs: Sequence[float],
    statistic: Callable[..., np.ndarray],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of ``statistic`` (``np.median``, ``np.mean``: called with
    ``axis=1`` on the resampled rows). Empty input gives None; one sample a zero-width
    interval."""
    if not len(xs):
        return None
    a = np.asarray(xs, dtype=float)
    if a.size == 1:
        return float(a[0]), float(a[0])
    rng = np.random.default_rng(seed)
    return percentile_interval(
        statistic(a[rng.integers(0, a.size, size=(resamples, a.size))], axis=1), level
    )


def bootstrap_median_ci(
    xs: Sequence[float], *, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the median. One sample gives a zero-width interval."""
    return bootstrap_ci(xs, np.median, level=level, resamples=resamples, seed=seed)


def bootstrap_score_ci(
    samples: Sequence[Sequence[float]],
    baselines: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float] | None:
    """CI of the mean speedup, resampling every bucket's latencies independently."""
    if not samples or any(len(s) == 0 for s in samples) or len(samples) != len(baselines):
        return None
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for xs, base in zip(samples, baselines, strict=True):
        total += base / bootstrap_medians(xs, rng, resamples)
    return percentile_interval(total / len(samples), level)


def binomial_stderr(p: float, n: int) -> float | None:
    """Standard error of an accuracy measured on ``n`` items (sampling uncertainty of a limited run)."""
    if n <= 0:
        return None
    return float(np.sqrt(max(p * (1 - p), 0.0) / n))
