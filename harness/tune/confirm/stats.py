"""Pure statistics of the confirmation (docs/tune.md, "Confirm the winner"): no I/O.

Each round measures every contestant once, in a fresh restart, so round i gives one pair
of scores (winner, opponent). The lead is the geometric mean of the pair ratios,
``exp(mean(ln(w_i / o_i))) − 1``, and its 95 % CI is a Student t interval on the log
ratios (``t(n − 1) · sd / √n``, n pairs). A t interval, not compare's bootstrap: with 3
rounds a percentile bootstrap has at most 10 distinct means and its interval is narrower
than the pairs' own spread. The pairs are whole restarts, so restart-to-restart noise is in
their spread, not assumed away.

The call is compare's (:func:`harness.paired.stats.verdict`): the lead counts only when
its CI excludes 0 and it is larger than compare's minimum effect (2 %: two fresh
processes of one server differ by 1–2 %).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.paired.stats import MIN_EFFECT_PCT, verdict
from harness.stats.distributions import t975

Call = Literal["confirmed", "tie", "overturned", "inconclusive"]
Luck = Literal["lucky", "unlucky", "within", "unknown"]

_CALLS: dict[str, Call] = {
    "better": "confirmed",
    "worse": "overturned",
    "within noise": "tie",
    "no data": "inconclusive",
    "inconclusive": "inconclusive",
}


@dataclass(frozen=True)
class Lead:
    """The winner's lead over one opponent from the rounds both were measured in."""

    pairs: int
    pct: float | None  # geometric mean of the ratios − 1, in %
    ci95_pct: tuple[float, float] | None  # None below two pairs
    call: Call


def pairs(a: Sequence[float | None], b: Sequence[float | None]) -> list[tuple[float, float]]:
    """The rounds where both sides have a positive score (a failed leg drops its round)."""
    return [(x, y) for x, y in zip(a, b, strict=True) if x and y and x > 0 and y > 0]


def _pct(log_ratio: float) -> float:
    return (math.exp(log_ratio) - 1) * 100


def lead(
    winner: Sequence[float | None],
    opponent: Sequence[float | None],
    *,
    min_effect_pct: float = MIN_EFFECT_PCT,
) -> Lead:
    """The winner's lead over ``opponent``, round by round (``winner[i]``, ``opponent[i]``:
    their scores in round i, None for a leg that gave none)."""
    both = pairs(winner, opponent)
    n = len(both)
    if n == 0:
        return Lead(0, None, None, "inconclusive")
    logs = [math.log(w / o) for w, o in both]
    mean = statistics.fmean(logs)
    if n < 2:
        return Lead(1, _pct(mean), None, "inconclusive")
    half = t975(n - 1) * statistics.stdev(logs) / math.sqrt(n)
    ci = (_pct(mean - half), _pct(mean + half))
    said = verdict(_pct(mean), ci, noise=min_effect_pct, higher_is_better=True)
    return Lead(n, _pct(mean), ci, _CALLS[said])


@dataclass(frozen=True)
class Mean:
    """A contestant's confirmed score: the mean of its legs, with a t interval."""

    n: int
    mean: float | None
    ci95: tuple[float, float] | None


def mean_ci(scores: Sequence[float]) -> Mean:
    if not scores:
        return Mean(0, None, None)
    mean = statistics.fmean(scores)
    if len(scores) < 2:
        return Mean(1, mean, None)
    half = t975(len(scores) - 1) * statistics.stdev(scores) / math.sqrt(len(scores))
    return Mean(len(scores), mean, (mean - half, mean + half))


@dataclass(frozen=True)
class Selection:
    """The search's score of the winner against what its confirmation legs measured."""

    search: float | None
    confirmed: float | None
    gap_pct: float | None  # search / confirmed − 1, in %
    luck: Luck  # lucky: above the confirmed CI; unlucky: below; within; unknown: no CI


def selection(search: float | None, legs: Sequence[float]) -> Selection:
    """How far the winner's search score was from its confirmed score (the selection error:
    a search keeps the highest of noisy samples, so its winner's score leans high)."""
    m = mean_ci(legs)
    if search is None or m.mean is None or m.mean <= 0:
        return Selection(search, m.mean, None, "unknown")
    gap = (search / m.mean - 1) * 100
    if m.ci95 is None:
        return Selection(search, m.mean, gap, "unknown")
    luck: Luck = "lucky" if search > m.ci95[1] else "unlucky" if search < m.ci95[0] else "within"
    return Selection(search, m.mean, gap, luck)


@dataclass(frozen=True)
class Option:
    """A candidate the tie rule may pick: its changes from the baseline, its median cold
    start and its confirmed score."""

    trial: int
    changes: int
    cold_start_s: float | None
    score: float | None = None


def _key(o: Option) -> tuple[int, float, float, int]:
    cold = math.inf if o.cold_start_s is None else o.cold_start_s
    return (o.changes, cold, -(o.score or 0.0), o.trial)


def tie_pick(options: Sequence[Option]) -> tuple[Option, str]:
    """Among tied candidates, the simpler diff from the baseline, then the lower median cold
    start, then the higher confirmed score; with the rule that decided (for the console)."""
    best = min(options, key=_key)
    others = [o for o in options if o is not best]
    if not others:
        return best, "the only candidate"
    if any(o.changes != best.changes for o in others):
        rest = ", ".join(str(o.changes) for o in others)
        return best, f"the simpler diff from the baseline ({best.changes} change(s) vs {rest})"
    colds = [o.cold_start_s for o in others]
    if best.cold_start_s is not None and any(c != best.cold_start_s for c in colds):
        rest = ", ".join("—" if c is None else f"{c:.2f} s" for c in colds)
        return best, f"the lower cold start ({best.cold_start_s:.2f} s vs {rest})"
    return best, "the higher confirmed score (same diff size and cold start)"
