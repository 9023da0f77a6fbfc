"""A run's own drift: how much a statistic moves between consecutive blocks of one run (pure).

Two runs of the same server differ by more than either run's bootstrap CI says:
the CI resamples requests as if they were independent, but the machine's load,
the server's state and the client's scheduling change over time, and they
change the whole run at once. ``harness compare`` cannot see the gap between
two runs, but it can see how much each run moved over its own length: the
timed requests, in the order they were sent, are cut into ``BLOCKS``
consecutive blocks, the statistic is computed on each block, and the spread of
the block values is that run's drift.

The spread has the robustness of the statistic it stands for. A median
shrugs off a burst that slows a few requests, so the drift of a median (and of
a latency score, built from medians) is the robust spread of the block medians,
1.4826 × their median absolute deviation (the SD a normal spread would have),
which ignores the one most deviant block. A throughput level's tok/s is a sum
over all its requests, and a slow wave costs it wall time, so its drift is a
plain SD; and since two runs of one procedure share the shape of their waves
(the first wave starts all at once, the last is short), the blocks of B are
set against the same blocks of A (:func:`ratio_drift`).

The noise band of a difference B − A is then ``t(df) · sqrt(s_A² + s_B²)``,
df by Welch–Satterthwaite from each side's ``blocks − 1`` (throughput:
``t(blocks − 1) · s`` of the paired blocks): a whole run is taken to drift from
another as much as one block of it drifts from another block. A
block holds fewer requests than a run, so its value also carries more sampling
error: the band errs wide, not narrow. ``bench/compare_calibration.py``
measures what it gives (docs/compare.md).

Fewer than two blocks (one request; one wave of a throughput level) give no
estimate: the difference is then inconclusive.

What no block can show is a change of conditions between two runs that are
each steady inside (the load doubling between A and B). Such a shift moves a
loaded run's requests and spreads them alike, so a latency difference must
also exceed ``sqrt(s_A² + s_B²)`` where s is the robust SD of each run's own
requests (:func:`robust_sd`; :func:`score_spread` for a score): on a quiet
machine the requests agree within a fraction of a millisecond and this costs
nothing; on a loaded one it keeps a load shift from being called a change.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from harness.stats.distributions import t975
from harness.stats.robust import mad_sigma

BLOCKS = 4  # blocks a run is cut into (docs/compare.md: why 4)


@dataclass(frozen=True)
class Drift:
    """The spread of a statistic over a run's consecutive blocks, and the block count."""

    sd: float
    blocks: int

    @property
    def df(self) -> int:
        return self.blocks - 1


def block_indexes(n: int, blocks: int = BLOCKS) -> list[list[int]]:
    """``range(n)`` cut into ``min(blocks, n)`` consecutive blocks, sizes differing by at most 1."""
    if n <= 0 or blocks <= 0:
        return []
    return [list(map(int, b)) for b in np.array_split(np.arange(n), min(blocks, n))]


def robust_sd(values: Sequence[float]) -> float:
    """1.4826 × the median absolute deviation from the median (0 for fewer than 2 values)."""
    return mad_sigma(values) or 0.0


def block_drift(
    values: Sequence[float], statistic: Callable[[Sequence[float]], float]
) -> Drift | None:
    """The robust spread of ``statistic`` over ``values`` in order (a block per index group)."""
    groups = block_indexes(len(values))
    if len(groups) < 2:
        return None
    stats = [statistic([values[i] for i in g]) for g in groups]
    return Drift(sd=robust_sd(stats), blocks=len(stats))


def median_drift(values: Sequence[float]) -> Drift | None:
    """The drift of the median of ``values`` (in the order the requests were sent)."""
    return block_drift(values, lambda xs: float(np.median(xs)))


def score_drift(buckets: Sequence[Sequence[float]], baselines: Sequence[float]) -> Drift | None:
    """The drift of a latency score (mean over buckets of baseline / median).

    Block k of the score is the score of block k of every bucket; every bucket
    needs at least two requests, and the block count is the smallest bucket's.
    """
    if not buckets or len(buckets) != len(baselines):
        return None
    k = min(min(len(b) for b in buckets), BLOCKS)
    if k < 2:
        return None
    per_bucket = [
        [base / float(np.median([xs[i] for i in g])) for g in block_indexes(len(xs), k)]
        for xs, base in zip(buckets, baselines, strict=True)
    ]
    scores = np.mean(np.asarray(per_bucket, dtype=float), axis=0)
    return Drift(sd=robust_sd(list(scores)), blocks=k)


def wave_blocks(
    tokens: Sequence[float], seconds: Sequence[float], waves: Sequence[int]
) -> list[float] | None:
    """A throughput level's tokens per request-second, block by block of whole waves.

    ``waves[i]`` is request i's wave (its send position // concurrency): requests
    of one wave run at the same moment, so a block is a run of whole waves, and a
    level of one wave gives no blocks (None). Each block's value is Σ tokens /
    Σ seconds of its requests.
    """
    ids = sorted(set(waves))
    groups = block_indexes(len(ids))
    if len(groups) < 2:
        return None
    ratios: list[float] = []
    for g in groups:
        chosen = {ids[i] for i in g}
        tok = sum(t for t, w in zip(tokens, waves, strict=True) if w in chosen)
        sec = sum(s for s, w in zip(seconds, waves, strict=True) if w in chosen)
        if sec <= 0 or tok <= 0:
            return None
        ratios.append(tok / sec)
    return ratios


def ratio_drift(blocks_a: Sequence[float], blocks_b: Sequence[float]) -> Drift | None:
    """The relative drift of B's tok/s against A's, block against block.

    Runs of one procedure have the same waves in the same places, and the same
    shape over them (the first wave of a closed loop starts all at once, the last
    one is short): that shape is no noise, and it cancels block by block. Each
    block k gives ``b_k / mean(b) − a_k / mean(a)``; their plain SD (ddof 1: a sum
    feels every slow wave) is the drift of B relative to A, as a share of tok/s,
    with ``blocks − 1`` degrees of freedom. None unless both have the same blocks.
    """
    if len(blocks_a) != len(blocks_b) or len(blocks_a) < 2:
        return None
    a = np.asarray(blocks_a, dtype=float)
    b = np.asarray(blocks_b, dtype=float)
    diffs = b / b.mean() - a / a.mean()
    return Drift(sd=float(np.std(diffs, ddof=1)), blocks=len(diffs))


def drift_band(parts: Sequence[tuple[float, Drift]]) -> float:
    """95 % bound of a sum of independent drifting terms: ``t(df) · sqrt(Σ (scale · sd)²)``.

    ``parts`` are (scale, drift) pairs: (1, drift) for a latency median in ms,
    (weight × tok/s of A, relative drift of B against A) for a throughput level. df by
    Welch–Satterthwaite over the parts' ``blocks − 1``. No parts, or no spread: 0.
    """
    var = [(scale * d.sd) ** 2 for scale, d in parts]
    total = sum(var)
    if total <= 0:
        return 0.0
    df = total**2 / sum(v * v / d.df for v, (_, d) in zip(var, parts, strict=True))
    return t975(df) * math.sqrt(total)


def score_spread(buckets: Sequence[Sequence[float]], baselines: Sequence[float]) -> float:
    """The robust spread of one run's requests carried to its latency score.

    score = mean over buckets of baseline / median, so a spread s of a bucket's
    requests moves the score by about baseline / median² · s / (number of buckets);
    the buckets' terms add in quadrature. 0 without requests.
    """
    if not buckets or len(buckets) != len(baselines) or any(not len(b) for b in buckets):
        return 0.0
    terms = [
        base / float(np.median(xs)) ** 2 * robust_sd(xs)
        for xs, base in zip(buckets, baselines, strict=True)
        if float(np.median(xs)) > 0
    ]
    return math.sqrt(sum(t * t for t in terms)) / len(buckets)
