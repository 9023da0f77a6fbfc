"""Settling a quality gate on part of its documents (``harness quality --decide``): pure statistics.

The documents under the run's limit are a finite population; a benchmark's score
is a known-weight mean of per-document values ``z = c / k`` in [0, 1] (``c``
instructions right of ``k``; ``k = 1`` for a right/wrong question), stratified by
score group (MMLU-Pro's 14 subjects, each 1/14 of the score) and by ``k``
(IFEval's instruction counts): ``θ = Σ_h W_h μ_h`` over strata ``h``. Documents are
drawn without replacement, each stratum in its own random order, strata
interleaved by a fixed schedule in proportion to ``W_h`` (:func:`schedule`).

A look settles the gate decision (``round(θ, 4) >= threshold``, as the grader
judges) when it is

- **certain**: the worst and best completions of the unasked documents, scored with
  the grader's arithmetic, land on the same side (:func:`certain`); or
- **settled at risk α** (0.001): a test rejects "the full set is on the other side".
  A benchmark of one right/wrong stratum (GPQA-Diamond, GSM8K) takes the exact
  group-sequential test of :mod:`harness.quality.decide_exact`, looked at after each
  round only. Every other shape takes an anytime-valid test: for each side, ``M_t(μ) = exp(Σ λ_i (x_i − μ_i(μ)) − Σ ψ(λ_i)
  (x_i − x̂_i)²)`` is a nonnegative supermartingale under any configuration ``μ``
  of stratum means (Howard et al. 2021, empirical-Bernstein; centred on the mean
  of the documents still unasked, ``μ_i = (N_h μ_h − S)/(N_h − t)``, as in
  Waudby-Smith & Ramdas 2020 for sampling without replacement), for predictable
  bets ``λ_i ∈ [0, 1)``. ``log M`` is affine in ``μ``, so its least value over the
  composite null ``{Σ W_h μ_h ≤ b}`` is a small linear programme
  (:func:`least_log_m`); by Ville's inequality, rejecting when that least value
  reaches ``log(1/α)`` errs with probability at most α however many looks are
  taken (the true ``μ`` is one of the configurations). ``1/M`` is the recorded
  risk.

The 95 % interval of the full-set score inverts the same tests with bets tuned for
an interval (Waudby-Smith & Ramdas' predictable plug-in), so it too holds at the
data-dependent stopping time. Everything works on arrays with a leading trial
axis: the run uses one trial, ``bench/quality_decide.py`` thousands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from harness.quality.decide_exact import ExactTest
from harness.quality.report import SCORE_DIGITS

ALPHA = 0.001  # the risk of a decision that the full set would reverse
CI_ALPHA = 0.05  # the projected score's interval: 95 %
# the interval inverts anytime tests at 4.9 % and is cut to the side the decision settled
# on (wrong with probability ≤ α = 0.1 %): 95 % in all, by the union bound
CS_ALPHA = 0.049
BET_CAP = 0.8  # decision bets stay below 1, where ψ(λ) grows without bound
CI_BET_CAP = 0.75
PRIOR_DRAWS = 4.0  # pseudo-documents at the boundary that damp the first bets
SLACK = 1e-9  # float fuzz around the rounding boundary, given to the null

Array = NDArray[np.float64]


def passes(score: float, threshold: float) -> bool:
    """The grader's verdict: the ROUNDED score against the threshold."""
    return round(score, SCORE_DIGITS) >= threshold


def boundary(threshold: float) -> float:
    """``b`` with ``round(θ, 4) >= threshold`` ⇔ ``θ >= b`` (up to float fuzz at ``b``)."""
    step = 10**SCORE_DIGITS
    k = math.floor(threshold * step) - 2
    while round(k / step, SCORE_DIGITS) < threshold:
        k += 1
    return (k - 0.5) / step


@dataclass(frozen=True)
class Stratum:
    group: int  # score group (MMLU-Pro subject) index, in the grader's order
    weight: int  # k: instructions per document (IFEval), else 1
    size: int  # documents


@dataclass(frozen=True)
class Design:
    """A benchmark's documents under the limit, as the score weighs them."""

    strata: tuple[Stratum, ...]
    threshold: float
    n_groups: int = 1
    alpha: float = ALPHA
    group_weight: tuple[int, ...] = field(init=False)  # K_g: Σ k·N of each group
    weights: Array = field(init=False, repr=False)  # W_h, summing to 1
    sizes: Array = field(init=False, repr=False)

    def __post_init__(self) -> None:
        totals = [0] * self.n_groups
        for s in self.strata:
            totals[s.group] += s.weight * s.size
        object.__setattr__(self, "group_weight", tuple(totals))
        w = [s.weight * s.size / totals[s.group] / self.n_groups for s in self.strata]
        object.__setattr__(self, "weights", np.array(w, dtype=np.float64))
        object.__setattr__(self, "sizes", np.array([s.size for s in self.strata], dtype=np.float64))

    @property
    def total(self) -> int:
        return sum(s.size for s in self.strata)

    @property
    def b(self) -> float:
        return boundary(self.threshold)


def schedule(design: Design) -> list[int]:
    """The stratum of every draw: each next draw goes to the stratum furthest behind its
    share ``W_h`` of the draws so far (exhausted strata skipped). Fixed, data-free."""
    w = design.weights
    taken = [0] * len(design.strata)
    out: list[int] = []
    for i in range(design.total):
        best, gap = -1, -math.inf
        for h, s in enumerate(design.strata):
            if taken[h] < s.size and w[h] * (i + 1) - taken[h] > gap + 1e-12:
                best, gap = h, w[h] * (i + 1) - taken[h]
        taken[best] += 1
        out.append(best)
    return out


def exact_score(design: Design, sums: Array) -> Array:
    """The grader's score from per-stratum totals of ``c`` (instructions right), per trial:
    each group's ``C_g / K_g`` added left to right, then divided by the group count."""
    per_group = np.zeros((sums.shape[0], design.n_groups))
    for h, s in enumerate(design.strata):
        per_group[:, s.group] += sums[:, h]
    acc = np.zeros(sums.shape[0])
    for g in range(design.n_groups):
        acc = acc + per_group[:, g] / design.group_weight[g]
    return acc / design.n_groups


def _passes(scores: Array, threshold: float) -> NDArray[np.bool_]:
    return np.array([passes(float(s), threshold) for s in scores], dtype=bool)


def certain(design: Design, sums_c: Array, taken: NDArray[np.int64]) -> NDArray[np.int8]:
    """+1 pass whatever the unasked documents answer, −1 fail likewise, 0 open (per trial)."""
    k = np.array([s.weight for s in design.strata], dtype=np.float64)
    best = sums_c + k * (design.sizes - taken)
    lo = _passes(exact_score(design, sums_c), design.threshold)
    hi = _passes(exact_score(design, best), design.threshold)
    return np.where(lo, 1, np.where(~hi, -1, 0)).astype(np.int8)


def psi(lam: Array) -> Array:
    """ψ_E(λ) = −log(1 − λ) − λ (the empirical-Bernstein exponent)."""
    return -np.log1p(-lam) - lam


def least_log_m(
    a: Array, b_coef: Array, penalty: Array, w: Array, lo: Array, hi: Array, budget: float | Array
) -> Array:
    """min over ``{Σ W μ ≤ budget, lo ≤ μ ≤ hi}`` of ``Σ (a − b_coef·μ) − penalty``, per trial.

    ``b_coef ≥ 0``, so the least value spends the whole budget on the strata with the
    largest ``b_coef / W`` first (a fractional knapsack). An empty null is +inf."""
    room = np.asarray(budget, dtype=np.float64) - (w * lo).sum(axis=1)
    ratio = b_coef / w
    order = np.argsort(-ratio, axis=1)
    cap = np.take_along_axis(w * (hi - lo), order, axis=1)
    before = np.cumsum(cap, axis=1) - cap
    fill = np.clip(room[:, None] - before, 0.0, cap)
    gain = (np.take_along_axis(ratio, order, axis=1) * fill).sum(axis=1)
    value = a.sum(axis=1) - (b_coef * lo).sum(axis=1) - gain - penalty
    return np.where(room < -SLACK, np.inf, value)


@dataclass
class _Test:
    """One one-sided test ``H: Σ W μ ≤ budget`` on values x (or 1 − x): its sums."""

    a: Array
    b: Array
    penalty: Array

    @classmethod
    def zeros(cls, trials: int, strata: int) -> _Test:
        z = np.zeros((trials, strata))
        return cls(z.copy(), z.copy(), np.zeros(trials))

    def add(
        self, h: int, lam: Array, x: Array, s_before: Array, n_h: float, rem: float, d2: Array
    ) -> None:
        self.a[:, h] += lam * (x + s_before / rem)
        self.b[:, h] += lam * n_h / rem
        self.penalty += psi(lam) * d2


@dataclass
class Look:
    """Where each trial stands at one look."""

    asked: int
    certain: NDArray[np.int8]  # +1 / −1 / 0
    settled: NDArray[np.int8]  # +1 / −1 / 0: the decision test alone, at risk ≤ α
    risk_pass: Array  # the risk of deciding PASS now
    risk_fail: Array  # the risk of deciding FAIL now

    def decision(self) -> NDArray[np.int8]:
        """+1 settled pass, −1 settled fail, 0 open."""
        return np.where(self.certain != 0, self.certain, self.settled).astype(np.int8)

    def risk(self, side: NDArray[np.int8]) -> Array:
        """The risk of deciding ``side`` (+1 pass, −1 fail) now; 0 when certain."""
        out = np.where(side > 0, self.risk_pass, self.risk_fail)
        return np.where(self.certain == side, 0.0, out)


Method = Literal["auto", "anytime"]


def uses_exact(design: Design) -> bool:
    """The exact group-sequential test (:mod:`harness.quality.decide_exact`) decides a
    benchmark of one right/wrong stratum; every other shape keeps the anytime test."""
    return len(design.strata) == 1 and design.strata[0].weight == 1


def worst_fail(design: Design) -> int:
    """``M0``: the most right answers of one right/wrong stratum with which the rounded
    score still fails (−1 when none fails), by the grader's arithmetic."""
    n = design.total
    m = min(n, max(0, math.floor(design.b * n) + 2))
    while m >= 0 and passes(m / n, design.threshold):
        m -= 1
    return m


def look_points(total: int, every: int) -> list[int]:
    """The documents asked at each look: after every round of ``every``, and at the end."""
    return [*range(every, total, every), total]


class Decider:
    """Sequential state of a benchmark's tests, for ``trials`` independent orders at once.

    ``every`` is the round size: the exact test looks after each round and nowhere else
    (its boundaries are computed for that schedule before the first answer)."""

    def __init__(
        self, design: Design, trials: int = 1, every: int = 1, method: Method = "auto"
    ) -> None:
        self.design = design
        h = len(design.strata)
        self.trials = trials
        self.exact: ExactTest | None = None
        if method == "auto" and uses_exact(design):
            points = look_points(design.total, every)
            self.exact = ExactTest.build(design.total, worst_fail(design), points, design.alpha)
        self.taken = np.zeros(h, dtype=np.int64)  # the schedule is the same in every trial
        self.sum_z = np.zeros((trials, h))
        self.sum_c = np.zeros((trials, h))
        self.sum_d2 = np.zeros(trials)
        self.asked = 0
        self.up, self.down = _Test.zeros(trials, h), _Test.zeros(trials, h)
        self.ci_up, self.ci_down = _Test.zeros(trials, h), _Test.zeros(trials, h)
        # Ville's inequality bounds the supermartingale's maximum: the best look counts
        self.best_up = np.full(trials, -np.inf)
        self.best_down = np.full(trials, -np.inf)

    def _bet_estimate(self) -> Array:
        d = self.design
        mean = (self.sum_z + d.b * PRIOR_DRAWS) / (self.taken + PRIOR_DRAWS)
        return (mean * d.weights).sum(axis=1)

    def add(self, h: int, c: Array | float) -> None:
        """One more document of stratum ``h`` per trial: ``c`` instructions right (of k)."""
        d, b = self.design, self.design.b
        x = np.broadcast_to(np.asarray(c, dtype=np.float64), (self.trials,)) / d.strata[h].weight
        n_h = float(d.strata[h].size)
        t = float(self.taken[h])
        if t >= n_h:
            raise ValueError(f"stratum {h} has no document left")
        rem = n_h - t
        s_before = self.sum_z[:, h].copy()
        d2 = (x - (s_before + 0.5) / (t + 1.0)) ** 2  # x̂: the stratum's mean so far
        var = (self.sum_d2 + 0.25 * PRIOR_DRAWS) / (self.asked + PRIOR_DRAWS)
        theta = self._bet_estimate()
        # Bets λ = γ·r_h, r_h the stratum's unasked share: every stratum's coefficient of
        # μ_h then grows in step with its weight W_h, so no stratum is a weak spot where
        # the composite null could hide; γ is the plug-in optimum at the strata's mean share.
        active = self.taken < d.sizes
        r_bar = float(((d.sizes - self.taken) / d.sizes * d.weights)[active].sum())
        r_bar /= float(d.weights[active].sum())
        scale = (rem / n_h) / r_bar
        gap_up = np.maximum(theta - b, 0.0)
        gap_down = np.maximum(b - theta, 0.0)
        lam_up = np.clip(gap_up / (r_bar * var + gap_up) * scale, 0.0, BET_CAP)
        lam_down = np.clip(gap_down / (r_bar * var + gap_down) * scale, 0.0, BET_CAP)
        n1 = self.asked + 1.0
        lam_ci = np.sqrt(2 * math.log(2 / CS_ALPHA) / (var * n1 * math.log(1 + n1)))
        lam_ci = np.minimum(lam_ci * scale, CI_BET_CAP)
        if self.exact is None:  # the exact test needs only the counts
            self.up.add(h, lam_up, x, s_before, n_h, rem, d2)
            self.down.add(h, lam_down, 1 - x, t - s_before, n_h, rem, d2)
        self.ci_up.add(h, lam_ci, x, s_before, n_h, rem, d2)
        self.ci_down.add(h, lam_ci, 1 - x, t - s_before, n_h, rem, d2)
        self.sum_z[:, h] += x
        self.sum_c[:, h] += x * d.strata[h].weight
        self.sum_d2 += d2
        self.taken[h] += 1
        self.asked += 1

    def _boxes(self) -> tuple[Array, Array, Array, Array]:
        """Each stratum mean's possible range (unasked all wrong / all right), on x and 1 − x."""
        n = self.design.sizes
        lo = self.sum_z / n
        hi = (self.sum_z + (n - self.taken)) / n
        return lo, hi, 1 - hi, 1 - lo

    def look(self) -> Look:
        d = self.design
        sure = certain(d, self.sum_c, self.taken)
        if self.exact is not None:
            return self._look_exact(sure)
        lo, hi, lo_y, hi_y = self._boxes()
        w = d.weights
        up = least_log_m(self.up.a, self.up.b, self.up.penalty, w, lo, hi, d.b + SLACK)
        down = least_log_m(
            self.down.a, self.down.b, self.down.penalty, w, lo_y, hi_y, 1 - d.b + SLACK
        )
        self.best_up = np.maximum(self.best_up, up)
        self.best_down = np.maximum(self.best_down, down)
        level = math.log(1 / d.alpha)
        settled = np.where(self.best_up >= level, 1, np.where(self.best_down >= level, -1, 0))
        return Look(
            self.asked,
            sure,
            settled.astype(np.int8),
            np.exp(-np.clip(self.best_up, 0.0, 700.0)),
            np.exp(-np.clip(self.best_down, 0.0, 700.0)),
        )

    def _look_exact(self, sure: NDArray[np.int8]) -> Look:
        assert self.exact is not None
        j = self.exact.index(self.asked)
        if j is None:  # between two scheduled looks the test says nothing
            ones = np.ones(self.trials)
            return Look(self.asked, sure, np.zeros(self.trials, dtype=np.int8), ones, ones)
        right = np.rint(self.sum_c[:, 0]).astype(np.int64)
        risk_pass, risk_fail = self.exact.risk(j, right)
        return Look(self.asked, sure, self.exact.settled(j, right), risk_pass, risk_fail)

    def estimate(self) -> Array:
        """The projected full-set score: each stratum's mean so far (the pooled mean where a
        stratum has no document yet), weighted as the score weighs it."""
        pooled = self.sum_z.sum(axis=1, keepdims=True) / max(self.asked, 1)
        means = np.where(self.taken > 0, self.sum_z / np.maximum(self.taken, 1), pooled)
        return (means * self.design.weights).sum(axis=1)

    def interval(
        self, side: NDArray[np.int8] | None = None, iters: int = 40
    ) -> tuple[Array, Array]:
        """The 95 % interval of the full-set score, valid at any stopping time: the
        anytime-valid 95.1 % interval (bisection on each end), cut where a decision has
        settled (``side`` +1 / −1 per trial, 0 open) to that side of the boundary.

        θ falls outside only if it falls outside the anytime interval (≤ 4.9 %) or the
        decision is wrong (≤ α): with α = 0.001, ≤ 5 % in all."""
        lo, hi, lo_y, hi_y = self._boxes()
        w = self.design.weights
        level = math.log(2 / CS_ALPHA)
        floor, ceil = (w * lo).sum(axis=1), (w * hi).sum(axis=1)

        def bound(test: _Test, box_lo: Array, box_hi: Array, start: Array, end: Array) -> Array:
            # the largest β whose null "mean ≤ β" is still rejected
            left, right = start.copy(), end.copy()
            for _ in range(iters):
                mid = (left + right) / 2
                rejected = (
                    least_log_m(test.a, test.b, test.penalty, w, box_lo, box_hi, mid) >= level
                )
                left = np.where(rejected, mid, left)
                right = np.where(rejected, right, mid)
            return left

        low = bound(self.ci_up, lo, hi, floor, ceil)
        high = 1 - bound(self.ci_down, lo_y, hi_y, 1 - ceil, 1 - floor)
        if side is not None:  # an empty cut means a wrong side or a miss: counted above
            b = self.design.b
            low = np.where(side > 0, np.maximum(low, b), low)
            high = np.where(side < 0, np.minimum(high, b), high)
            high = np.maximum(high, low)
        return low, high


def look_every(total: int, concurrency: int) -> int:
    """Documents asked between two looks: a fortieth of the set, at least one wave of the
    benchmark's concurrency and at most four (each look is one lm-eval evaluation)."""
    return max(concurrency, min(4 * concurrency, math.ceil(total / 40)))
