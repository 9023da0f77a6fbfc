"""The one set of number formats of every table: a missing value is always a dash."""

from __future__ import annotations

from collections.abc import Callable

from harness.stats.tails import TailClaim

DASH = "—"


def num(v: float | None, spec: str = ".1f") -> str:
    """``format(v, spec)``, or a dash for None."""
    return DASH if v is None else format(v, spec)


def signed(v: float | None, digits: int = 1) -> str:
    """A difference with its sign; one that rounds to zero is "+0.0", never "-0.0"."""
    return DASH if v is None else f"{round(v, digits) + 0.0:+.{digits}f}"


def ms(v: float | None) -> str:
    """Milliseconds: whole numbers with thousands separators from 100 up, else one decimal."""
    return DASH if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def times(v: float | None, digits: int = 2) -> str:
    """A ratio such as a speedup: ``2.50×``."""
    return DASH if v is None else f"{v:.{digits}f}×"


def pct(v: float | None, digits: int = 0) -> str:
    """A share (0..1) as a percentage, never "-0%"."""
    return DASH if v is None else f"{round(v, 2 + digits) + 0.0:.{digits}%}"


def span(pair: tuple[float, float] | None, f: Callable[[float | None], str] = ms) -> str:
    """A range such as a CI written ``lo–hi`` in the figure's own format."""
    return DASH if pair is None else f"{f(pair[0])}–{f(pair[1])}"


def around(value: float | None, pair: tuple[float, float] | None, digits: int = 2) -> str:
    """An interval as its two distances from its figure, in % of it: ``−1.70 % / +142.76 %``.
    Both sides always: an asymmetric interval is never shown as one ±."""
    if value is None or pair is None or value == 0:
        return DASH

    def side(bound: float, zero: str) -> str:
        d = (bound - value) / abs(value) * 100
        sign = zero if d == 0 else "−" if d < 0 else "+"
        return f"{sign}{abs(d):.{digits}f} %"

    return f"{side(pair[0], '−')} / {side(pair[1], '+')}"


def ci(pair: tuple[float, float] | None, digits: int = 1) -> str:
    """A CI of a difference: ``[-0.5, +3.4]``."""
    return DASH if pair is None else f"[{pair[0]:+.{digits}f}, {pair[1]:+.{digits}f}]"


def p_value(p: float | None) -> str:
    return DASH if p is None else f"{p:.2g}" if p < 0.01 else f"{p:.3f}"


def yes_no(v: bool | None, yes: str = "yes", no: str = "no") -> str:
    return DASH if v is None else yes if v else no


def text(v: object) -> str:
    """Free text or a count; None and "" become a dash."""
    return DASH if v is None or v == "" else str(v)


def tail(
    value: float | None, claim: TailClaim | None, f: Callable[[float | None], str] = ms
) -> str:
    """An empirical percentile with what it can claim (harness/stats/tails.py): ``41.2 (≤ 45.0 at
    99%)``, or ``4.7, not enough samples (10 of 662 needed)``; a bare number only for a
    figure with no claim."""
    if value is None:
        return DASH
    if claim is None:
        return f(value)
    if claim.sufficient and claim.estimate is not None:
        return f"{f(value)} (≤ {f(claim.estimate)} at {claim.confidence:.0%})"
    if claim.sufficient:
        return f"{f(value)} (estimate not recorded)"
    return f"{f(value)}, not enough samples ({claim.n} of {claim.min_samples} needed)"
