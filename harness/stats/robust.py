"""Robust location and spread: what a few stalled requests barely move.

Two different estimators carry Hodges and Lehmann's name, and their names here say which:
:func:`hodges_lehmann_walsh` is the one-sample estimate of a location (the median of the
Walsh averages), :func:`hodges_lehmann_ratio` the two-sample estimate of a ratio (the
median of every pair's ratio).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

MAD_TO_SD = 1.4826  # the SD of a normal distribution whose median absolute deviation is 1

# The audit's timing rules (docs/audit.md). Answers whose lengths differ by more than this
# share spread a fixed cost (TTFT) over other token counts: not compared.
LENGTH_MATCH = 0.25
# Two noise limits, deliberately different: a look whose identical requests vary more than
# NOISE_LIMIT_REQUEST (the MAD σ of one request's time per token over its median) cannot
# tell a 10 % split from noise; a pair holds two requests' noise, so the limit on the
# spread of pairs' log time ratios is that one times √2, rounded: NOISE_LIMIT_PAIR.
NOISE_LIMIT_REQUEST = 0.10
NOISE_LIMIT_PAIR = 0.15


def median(xs: Sequence[float]) -> float | None:
    """The sample median (the middle value, or the mean of the two middle ones, as
    ``statistics.median`` and numpy agree); None when empty."""
    return float(statistics.median(xs)) if len(xs) else None


def mad_sigma(xs: Sequence[float]) -> float | None:
    """1.4826 × the median absolute deviation from the median: the σ of a normal spread,
    which a stall does not move. None under 2 values."""
    if len(xs) < 2:
        return None
    mid = statistics.median(xs)
    return float(MAD_TO_SD * statistics.median(abs(x - mid) for x in xs))


def hodges_lehmann_walsh(xs: Sequence[float]) -> float | None:
    """The one-sample Hodges–Lehmann estimate of a location: the median of every
    (i <= j) pair's mean (the Walsh averages). None when empty."""
    walsh = [(xs[i] + xs[j]) / 2 for i in range(len(xs)) for j in range(i, len(xs))]
    return statistics.median(walsh) if walsh else None


def hodges_lehmann_ratio(a: Sequence[float], b: Sequence[float]) -> float | None:
    """The two-sample Hodges–Lehmann estimate of ``a`` over ``b``: the median of the
    ratios of every (a, b) pair with b > 0. A few stalled requests barely move it, as with
    a median; it uses every pair, so it is nearly as precise as a ratio of means."""
    pairs = [x / y for x in a for y in b if y > 0]
    return statistics.median(pairs) if pairs else None
