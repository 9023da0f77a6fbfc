"""The exact group-sequential test of a right/wrong benchmark of one stratum (GPQA-Diamond,
GSM8K): pure statistics for ``harness quality --decide`` (docs/quality.md, Deciding early).

``N`` documents, ``M`` of them right (unknown); the gate passes when ``M/N``, rounded as
the grader rounds it, reaches the threshold, i.e. when ``M > M0``. The documents are
asked in a uniformly random order and looked at after each round, at a schedule
``n_1 < n_2 < … < n_J = N`` fixed before the first answer. ``S_j``, the right answers
among the first ``n_j``, is then a hypergeometric process: given ``S_{j−1} = s``,
``S_j − s`` is hypergeometric (``N − n_{j−1}`` documents left, ``M − s`` of them right,
``n_j − n_{j−1}`` drawn). The test settles PASS at the first look with ``S_j ≥ u_j``.

Its error is computed exactly, not bounded: under ``M = M0`` a dynamic programme carries
the distribution of ``S_j`` over the paths that have not crossed yet, and ``u_j`` is the
least count whose cumulative crossing probability stays within ``α(n_j/N)``, a
Hwang–Shih–DeCani spending function (``α(1) = α``). Every ``M ≤ M0`` (the whole null
"the full set fails") errs less: couple the orders, and turning a wrong document right
raises every ``S_j`` on every path, so each crossing under ``M`` is one under ``M0``. The
FAIL side is the same test on the wrong answers, at ``M1 = M0 + 1``. Each side errs
with probability at most α, however the run stops.

The recorded risk of a decision at look ``j`` is ``P_{M0}(cross by j)``, the error the
test has spent by then: crossing by look ``j`` is again an event that grows with ``M``,
so deciding at risk ``r`` errs with probability at most ``r`` under every ``M ≤ M0``.
While open, the risk shown is ``P_{M0}(cross before j) + P_{M0}(no crossing before j,
S_j ≥ s)``: the level at which the count ``s`` would settle now.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

GAMMA = 2.0  # Hwang–Shih–DeCani: spends a little more of α early, where far scores settle
SAFETY = 1e-6  # relative margin below α for the float sums of the crossing probabilities

Array = NDArray[np.float64]


def spending(t: float, alpha: float, gamma: float = GAMMA) -> float:
    """``α(t) = α (1 − e^{−γt}) / (1 − e^{−γ})``: the error allowed by the share ``t`` of the set."""
    if t >= 1:
        return alpha
    return alpha * (1 - math.exp(-gamma * t)) / (1 - math.exp(-gamma))


def _log_factorials(n: int) -> Array:
    return np.array([math.lgamma(i + 1) for i in range(n + 1)])  # each to ~1e-15


def _log_choose(lf: Array, n: NDArray[np.int64], k: NDArray[np.int64]) -> Array:
    ok = (k >= 0) & (k <= n)
    nn, kk = np.where(ok, n, 0), np.where(ok, k, 0)
    return np.where(ok, lf[nn] - lf[kk] - lf[nn - kk], -np.inf)


def hypergeom_pmf(pop: int, right: NDArray[np.int64], drawn: int) -> Array:
    """``P(k right of drawn)`` for ``k = 0..drawn``, one row per count ``right`` in the urn."""
    lf = _log_factorials(pop)
    k = np.arange(drawn + 1)[None, :]
    given = np.asarray(right, dtype=np.int64)[:, None]
    r = np.clip(given, 0, pop)
    logp = _log_choose(lf, r, k) + _log_choose(lf, pop - r, drawn - k) - lf[pop]
    logp += lf[drawn] + lf[pop - drawn]
    return np.where(given == r, np.exp(logp), 0.0)  # an urn that cannot exist: no mass


@dataclass(frozen=True)
class Side:
    """One side's boundaries: ``bound[j]`` (settle when the count reaches it; above ``n_j``
    when it cannot), ``spent[j]`` (the exact crossing probability by look ``j`` under the
    worst null) and ``tails[j][s]`` (``P(no crossing before j, S_j ≥ s)``, ``s = 0..n_j+1``)."""

    bound: tuple[int, ...]
    spent: tuple[float, ...]
    tails: tuple[Array, ...]


def _walk(total: int, right: int, looks: Sequence[int]) -> Iterator[tuple[int, Array]]:
    """The law of ``S_j`` over the paths still open, look by look, for an urn of ``total``
    documents, ``right`` of them right: yields ``(j, dist)``; the caller zeroes in ``dist``
    the counts that settle (``dist`` is then carried to the next look)."""
    alive = np.ones(1)
    before = 0
    for j, n in enumerate(looks):
        step = n - before
        states = np.arange(before + 1)
        dist = np.zeros(n + 1)
        if 0 <= right <= total:
            pmf = hypergeom_pmf(total - before, right - states, step)
            for k in range(step + 1):
                dist[k : k + before + 1] += alive * pmf[:, k]
        yield j, dist
        alive, before = dist, n


def side(total: int, right: int, looks: Sequence[int], alpha: float, gamma: float = GAMMA) -> Side:
    """Boundaries for "reject ``M ≤ right``" on the count of right answers (the null's worst
    case is ``M = right``); ``right < 0`` is an empty null, ``right ≥ total`` one never rejected."""
    spent = 0.0
    bounds: list[int] = []
    spents: list[float] = []
    tails: list[Array] = []
    for j, dist in _walk(total, right, looks):
        n = looks[j]
        tail = np.zeros(n + 2)
        tail[: n + 1] = np.cumsum(dist[::-1])[::-1]
        if right < 0:
            bound = 0  # no configuration fails: any count settles (the certain check agrees)
        elif right >= total:
            bound = n + 1
        else:
            room = spending(n / total, alpha, gamma) * (1 - SAFETY) - spent
            fits = np.nonzero(tail <= room)[0]
            bound = int(fits[0]) if fits.size else n + 1
        spent += float(tail[bound]) if bound <= n else 0.0
        bounds.append(bound)
        spents.append(spent)
        tails.append(tail)
        dist[min(bound, n + 1) :] = 0.0
    return Side(tuple(bounds), tuple(spents), tuple(tails))


def crossing(total: int, right: int, looks: Sequence[int], bound: Sequence[int]) -> float:
    """``P(S_j ≥ bound_j at some look)`` for an urn with ``right`` right answers: the exact
    chance that a side settles, whatever else stops the run (for the bench and the tests)."""
    out = 0.0
    for j, dist in _walk(total, right, looks):
        out += float(dist[bound[j] :].sum())
        dist[bound[j] :] = 0.0
    return out


@dataclass(frozen=True)
class ExactTest:
    """Both sides of the exact test of one right/wrong stratum at a fixed look schedule."""

    total: int
    looks: tuple[int, ...]
    worst_fail: int  # M0: the most right answers with which the full set still fails
    up: Side  # PASS: right answers against M ≤ M0
    down: Side  # FAIL: wrong answers against M ≥ M0 + 1, i.e. wrong ≤ N − M0 − 1

    @classmethod
    def build(cls, total: int, worst_fail: int, looks: Sequence[int], alpha: float) -> ExactTest:
        if not looks or list(looks) != sorted(set(looks)) or looks[-1] != total or looks[0] < 1:
            raise ValueError(f"looks must rise from 1 to {total}: {list(looks)}")
        up = side(total, worst_fail, looks, alpha)
        down = side(total, total - worst_fail - 1, looks, alpha)
        return cls(total, tuple(looks), worst_fail, up, down)

    def index(self, asked: int) -> int | None:
        """The look at ``asked`` documents, or None between looks."""
        j = int(np.searchsorted(self.looks, asked))
        return j if j < len(self.looks) and self.looks[j] == asked else None

    def settled(self, j: int, right: NDArray[np.int64]) -> NDArray[np.int8]:
        """+1 settled pass, −1 settled fail, 0 open, per trial, at look ``j``."""
        wrong = self.looks[j] - right
        out = np.where(right >= self.up.bound[j], 1, 0)
        out = np.where((out == 0) & (wrong >= self.down.bound[j]), -1, out)
        return out.astype(np.int8)

    def risk(self, j: int, right: NDArray[np.int64]) -> tuple[Array, Array]:
        """The risks of deciding PASS and of deciding FAIL at look ``j``, per trial."""
        wrong = self.looks[j] - right
        return _risk(self.up, j, right), _risk(self.down, j, wrong)


def _risk(s: Side, j: int, count: NDArray[np.int64]) -> Array:
    before = s.spent[j - 1] if j else 0.0
    open_ = before + s.tails[j][np.clip(count, 0, len(s.tails[j]) - 1)]
    return np.where(count >= s.bound[j], s.spent[j], np.minimum(1.0, open_))
