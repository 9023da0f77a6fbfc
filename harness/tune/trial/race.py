"""Racing: stop measuring a candidate's speed once it cannot beat the incumbent (pure).

The score is the profile's (Efficient Qwen: the mean over the measured buckets of
``baseline_ms / median``). Each bucket's median is bounded by the confidence sequence
of :mod:`harness.stats.median_sequence` (order statistics, an exact band over every look,
valid however the stopping time is chosen), taken at ``alpha / k`` for ``k`` buckets:
by the union bound every bucket's interval covers its true median at every look at
once with probability >= 1 - alpha, so the optimistic score

    U = mean_b(baseline_b / lo_b)      (lo_b: bucket b's lower median bound)

is above the candidate's true score at every look with probability >= 1 - alpha.
The race stops the measurement at the first look where ``U < incumbent``: a candidate
whose true score is at least the incumbent's is stopped with probability <= alpha.

A bucket not measured yet (buckets run in the grader's order) has no bound of its own:
``U`` is infinite, and nothing stops, until every bucket has one, unless the space
declares ``[race] max_speedup``, the most any candidate's speedup in one bucket can be;
then every bucket's bound is capped there and an unmeasured bucket counts at the cap.
That cap is an assumption, not a measurement (docs/tune.md, "Racing").
No I/O, no clocks: tested with literal numbers (tests/unit/test_tune_race.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from harness.stats.median_sequence import ALPHA, BUDGET, MIN_RUNS, Boundary, boundary


@dataclass(frozen=True)
class RaceSpec:
    """What the rule needs: the measured buckets in the order they run, their baselines."""

    buckets: tuple[tuple[str, float], ...]  # (name, baseline_ms), in the grader's order
    cap: int  # timed runs per bucket (the looks stop there)
    alpha: float = ALPHA  # the joint risk of stopping a candidate that could win
    max_speedup: float | None = None  # [race] max_speedup: an optimistic cap per bucket
    floor: int = MIN_RUNS  # no look before this many successes in a bucket

    def bound_sequence(self) -> Boundary:
        """Each bucket's sequence, at its share of the error budget (alpha / k)."""
        k = max(1, len(self.buckets))
        return boundary(self.cap, self.floor, self.alpha / k, min(BUDGET, self.alpha) / k)


@dataclass(frozen=True)
class RaceLook:
    """The rule's answer after one look."""

    upper: float | None  # the optimistic score; None: unbounded (no stop possible yet)
    bucket_upper: dict[str, float | None]  # each bucket's speedup bound (None: unbounded)
    stop: bool
    why: str  # the sentence a stopped trial carries ("" when it goes on)


def speedup_bound(
    values: Sequence[float], baseline_ms: float, seq: Boundary, cap: float | None
) -> float | None:
    """The most this bucket's true speedup can be (``baseline / lower median bound``):
    ``cap`` (or None, unbounded) while the sequence has no interval at ``len(values)``."""
    n = len(values)
    rank = seq.rank(n) if n else 0
    if rank == 0:
        return cap
    lo = sorted(values)[rank - 1]
    bound = math.inf if lo <= 0 else baseline_ms / lo
    return bound if cap is None else min(bound, cap)


def race_look(
    spec: RaceSpec, values: Mapping[str, Sequence[float]], incumbent: float | None
) -> RaceLook:
    """Stop or go on, from each bucket's successful timed latencies so far (in order of
    arrival; a bucket absent or empty is not measured yet) and the incumbent's score."""
    seq = spec.bound_sequence()
    uppers = {
        name: speedup_bound(values.get(name, ()), base, seq, spec.max_speedup)
        for name, base in spec.buckets
    }
    known = [u for u in uppers.values() if u is not None]
    upper = sum(known) / len(known) if known and len(known) == len(uppers) else None
    stop = incumbent is not None and upper is not None and upper < incumbent
    why = ""
    if stop and upper is not None and incumbent is not None:
        conf = f"{(1 - spec.alpha) * 100:g} %"
        why = f"score ≤ {upper:.2f} ({conf} bound) < incumbent {incumbent:.2f}"
        current = [name for name, _ in spec.buckets if values.get(name)]
        if current:
            last = current[-1]
            why += f" after {len(values[last])} of {spec.cap} runs in {last}"
        if spec.max_speedup is not None and any(not values.get(n) for n, _ in spec.buckets):
            why += f" (unmeasured buckets at max_speedup {spec.max_speedup:g})"
    return RaceLook(upper=upper, bucket_upper=uppers, stop=stop, why=why)
