"""Pure statistics for A/B comparisons: no I/O, no clocks (docs/architecture.md, "Pure modules").

Every bootstrap takes a ``seed`` and resamples A and B independently (the two
runs are independent samples of their servers); percentile intervals.
Empty input gives ``None``; one sample gives a zero-width interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats.intervals import bootstrap_ci, bootstrap_medians, percentile_interval

RESAMPLES = 2000
# The default minimum effect, % of A. Two fresh processes of the same server differ by
# 1-2 % of a median on a quiet machine while each run is steady inside (its blocks agree
# within 0.2 %): an offset no within-run statistic can see. At 1 %, 8 % of identical pairs
# were called at 20 runs; at 2 %, none (bench/compare_calibration.py, docs/compare.md).
MIN_EFFECT_PCT = 2.0


def diff_of_medians_ci(
    a: Sequence[float],
    b: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Bootstrap CI of ``median(b) - median(a)``; None when either side is empty."""
    if not len(a) or not len(b):
        return None
    rng = np.random.default_rng(seed)
    diffs = bootstrap_medians(b, rng, resamples) - bootstrap_medians(a, rng, resamples)
    return percentile_interval(diffs, level)


def paired_mean_diff_ci(
    diffs: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Bootstrap CI of the mean of paired differences (B − A per item, items resampled)."""
    return bootstrap_ci(diffs, np.mean, level=level, resamples=resamples, seed=seed)


def score_diff_ci(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    baselines: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Bootstrap CI of ``score(b) - score(a)``, score = mean over buckets of baseline / median.

    ``a[k]`` and ``b[k]`` are bucket k's per-request latencies; every bucket of
    both runs is resampled independently in each replicate.
    """
    n = len(baselines)
    if n == 0 or len(a) != n or len(b) != n or any(not len(x) for x in (*a, *b)):
        return None
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for xa, xb, base in zip(a, b, baselines, strict=True):
        total += base / bootstrap_medians(xb, rng, resamples) - base / bootstrap_medians(
            xa, rng, resamples
        )
    return percentile_interval(total / n, level)


@dataclass(frozen=True)
class LevelSample:
    """One throughput level: its measured tok/s and its requests' (tokens, seconds)."""

    tok_s: float
    tokens: Sequence[float]
    seconds: Sequence[float]


def _ratio_replicates(level: LevelSample, rng: np.random.Generator, resamples: int) -> np.ndarray:
    t = np.asarray(level.tokens, dtype=float)
    s = np.asarray(level.seconds, dtype=float)
    if t.size == 0 or s.sum() <= 0:
        return np.full(resamples, level.tok_s)
    idx = rng.integers(0, t.size, size=(resamples, t.size))
    ratio = t[idx].sum(axis=1) / np.maximum(s[idx].sum(axis=1), 1e-12)
    return level.tok_s * ratio / (t.sum() / s.sum())


def weighted_throughput_diff_ci(
    a: Sequence[LevelSample],
    b: Sequence[LevelSample],
    weights: Sequence[float],
    *,
    level: float = 0.95,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """CI of ``sum(w·tok_s(b)) - sum(w·tok_s(a))`` from per-request (tokens, seconds).

    A level's tok/s is fixed by its wall time; its sampling error comes from
    which requests it happened to serve. Each replicate resamples a level's
    requests and rescales the measured tok/s by the ratio of resampled to
    observed tokens per request-second (a ratio estimator), levels and runs
    independently. One level with weight 1 gives that level's CI.
    """
    if not weights or len(a) != len(weights) or len(b) != len(weights):
        return None
    if any(len(x.tokens) == 0 or len(x.tokens) != len(x.seconds) for x in (*a, *b)):
        return None
    rng = np.random.default_rng(seed)
    total = np.zeros(resamples)
    for la, lb, w in zip(a, b, weights, strict=True):
        total += w * (_ratio_replicates(lb, rng, resamples) - _ratio_replicates(la, rng, resamples))
    return percentile_interval(total, level)


def verdict(
    diff: float | None,
    ci: tuple[float, float] | None,
    *,
    noise: float = 0.0,
    higher_is_better: bool = False,
    estimated: bool = True,
) -> str:
    """``better`` / ``worse`` / ``within noise`` / ``inconclusive`` / ``no data`` for B − A.

    A difference counts only when its CI excludes 0 AND it is larger than the
    noise band (the runs' own drift, the between-run spread when repeats exist,
    and the minimum effect). ``estimated=False``: the runs are too short to
    estimate their drift (harness/paired/drift.py), so no call is made.
    """
    if diff is None or ci is None:
        return "no data"
    if not estimated:
        return "inconclusive"
    if (ci[0] <= 0 <= ci[1]) or abs(diff) <= noise:
        return "within noise"
    up = diff > 0
    return "better" if up == higher_is_better else "worse"
