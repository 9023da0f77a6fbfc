"""The one summary of a distribution every report carries, and the grader's speedup score.

Percentiles use linear interpolation (numpy's default, as vLLM's benchmark and
``statistics.median`` agree on for the median). Empty input gives ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from harness.stats.intervals import bootstrap_median_ci
from harness.stats.tails import PERCENTILES, TailClaim, claims, unrecorded


class Dist(BaseModel):
    """The one summary of a distribution (ms, tokens, …) in every report.

    Its JSON keys are report data: latency.json, throughput.json and the
    self-test write them (docs/reports.md). ``ci95`` is the bootstrap 95 % CI
    of the median, filled only where a report asks for it. ``p90``/``p95``/``p99`` are
    the empirical percentiles; ``tails`` says what each can claim (harness/stats/tails.py: the
    conservative estimate at 99 %, or not enough samples). A report written before
    ``tails`` existed has none: :meth:`tail` rebuilds the floor from ``n``.
    """

    n: int = 0
    mean: float | None = None
    median: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    min: float | None = None
    max: float | None = None
    stdev: float | None = None
    ci95: tuple[float, float] | None = None
    tails: dict[str, TailClaim] | None = None

    def tail(self, key: str) -> TailClaim | None:
        """What the percentile ``key`` (``p90``, ``p95``, ``p99``) can claim; None when empty."""
        if not self.n:
            return None
        if self.tails is not None and key in self.tails:
            return self.tails[key]
        return unrecorded(self.n, PERCENTILES[key])


def percentile(xs: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(xs, dtype=float), q)) if len(xs) else None


def dist(xs: Sequence[float], *, ci: bool = False, seed: int = 0) -> Dist:
    """Summarise ``xs``; with ``ci`` also the bootstrap CI of the median (seeded)."""
    if not len(xs):
        return Dist()
    a = np.asarray(xs, dtype=float)
    p50, p90, p95, p99 = (float(v) for v in np.percentile(a, [50, 90, 95, 99]))
    return Dist(
        n=int(a.size),
        mean=float(a.mean()),
        median=p50,
        p50=p50,
        p90=p90,
        p95=p95,
        p99=p99,
        min=float(a.min()),
        max=float(a.max()),
        stdev=float(a.std(ddof=1)) if a.size > 1 else 0.0,
        ci95=bootstrap_median_ci(xs, seed=seed) if ci else None,
        tails=claims(xs),
    )


def speedup(baseline_ms: float, measured_ms: float | None) -> float | None:
    """The grader's per-bucket speedup: baseline median / measured median."""
    if measured_ms is None or measured_ms <= 0:
        return None
    return baseline_ms / measured_ms


def mean_speedup(speedups: Sequence[float | None]) -> float | None:
    """The grader's score: the mean of the per-bucket speedups (None if any bucket is missing)."""
    if not speedups or any(s is None for s in speedups):
        return None
    return float(sum(s for s in speedups if s is not None) / len(speedups))


def achieved_concurrency(intervals: Sequence[tuple[int, int]]) -> tuple[int, float]:
    """(max requests in flight, time-weighted mean in flight) over [first send, last end]."""
    if not intervals:
        return 0, 0.0
    events: list[tuple[int, int]] = []
    for start, end in intervals:
        events.append((start, 1))
        events.append((max(end, start), -1))
    events.sort(key=lambda e: (e[0], e[1]))  # ends before starts at the same instant
    peak = level = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    span = max(e for _, e in intervals) - min(s for s, _ in intervals)
    busy = sum(max(0, e - s) for s, e in intervals)
    return peak, (busy / span if span > 0 else float(peak))
