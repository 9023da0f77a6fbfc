"""``--until-ci PCT``: when a bucket stops, and what its report says about it.

The runner asks a :class:`Stopper` after every timed request; the report's per-bucket
:class:`~harness.latency.report.UntilCi` record is rebuilt from the measured rows by
:func:`until_ci_record` (so a partial or interrupted run says the same), and a bucket
stopped before its cap is an estimate, not the grader's procedure: :func:`until_ci_flag`
(an ``estimate`` risk flag, as quality's ``--decide`` raises).
The statistics are in harness/latency/sequential.py (the median) and
harness/latency/quantile_sequence.py (``--until-ci-at`` a percentile), pure; docs/timing.md
says why they hold under optional stopping.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.latency.quantile_sequence import (
    QuantileBoundary,
    QuantileLook,
    quantile_boundary,
    quantile_look,
)
from harness.latency.report import BucketResult, RequestRow, StopReason, UntilCi
from harness.latency.sequential import MIN_RUNS, Boundary, Look, boundary, look
from harness.risk import FlagKind, RiskFlag
from harness.tails import PERCENTILES

QUANTILE_RULE = "quantile confidence sequence (order statistics, exact band over the looks)"
AnyLook = Look | QuantileLook  # the median's look, or a percentile's (--until-ci-at)


def _boundary(cap: int, at: str) -> Boundary | QuantileBoundary:
    return boundary(cap, MIN_RUNS) if at == "median" else quantile_boundary(cap, PERCENTILES[at])


def _look(values: list[float], bound: Boundary | QuantileBoundary, pct: float) -> AnyLook:
    if isinstance(bound, Boundary):
        return look(values, bound, pct)
    return quantile_look(values, bound, pct)


class Stopper:
    """One bucket's looks: feed it every timed request; ``narrow`` says stop now."""

    def __init__(self, pct: float, cap: int, at: str = "median") -> None:
        self.pct = pct
        self.bound = _boundary(cap, at)
        self.values: list[float] = []
        self.last: AnyLook | None = None

    def add(self, ok: bool, e2e_ms: float | None) -> AnyLook:
        """One timed request ended; a failure adds nothing (the grader drops it)."""
        if ok and e2e_ms is not None:
            self.values.append(e2e_ms)
        self.last = _look(self.values, self.bound, self.pct)
        return self.last

    @property
    def narrow(self) -> bool:
        return self.last is not None and self.last.narrow

    def stop_now(self) -> bool:
        """The loop's question before each send."""
        return self.narrow


def _why(
    rec_pct: float, lk: AnyLook, stopped: StopReason, runs: int, cap: int, at: str = "median"
) -> str:
    width = "no interval yet" if lk.half_width_pct is None else f"±{lk.half_width_pct:.2f} %"
    if stopped == "narrow":
        return (
            f"stopped after {runs} of {cap} runs: the 95 % interval of the {at} is "
            f"{width}, within ±{rec_pct:g} %"
        )
    if stopped == "cap":
        return f"ran all {cap} runs: the 95 % interval is {width}, wider than ±{rec_pct:g} %"
    return f"interrupted after {runs} of {cap} runs ({width})"


def until_ci_record(
    rows: Sequence[RequestRow], pct: float, cap: int, at: str = "median"
) -> UntilCi:
    """The record of one bucket from its rows (timed rows in the order they were sent)."""
    timed = [r for r in rows if r.phase == "timed"]
    values = [r.e2e_ms for r in timed if r.ok and r.e2e_ms is not None]
    bound = _boundary(cap, at)
    lk = _look(values, bound, pct)
    stopped: StopReason = "narrow" if lk.narrow else "cap" if len(timed) >= cap else "interrupted"
    interval = (lk.lo, lk.hi) if lk.lo is not None and lk.hi is not None else None
    return UntilCi(
        pct=pct,
        runs_used=len(timed),
        runs_cap=cap,
        n_ok=len(values),
        interval_ms=interval,
        half_width_pct=lk.half_width_pct,
        stopped=stopped,
        why=_why(pct, lk, stopped, len(timed), cap, at),
        floor=bound.floor,
        alpha=bound.alpha,
        nominal_level=bound.nominal,
        miss_probability=bound.miss,
        at=at,
        **({} if at == "median" else {"rule": QUANTILE_RULE}),
    )


def until_ci_flag(buckets: Sequence[BucketResult]) -> list[RiskFlag]:
    """ESTIMATE, one per bucket stopped before its run count: an estimate of the grader's
    median, not its procedure (a bucket that ran every run is the grader's procedure). Said
    the way quality's ``--decide`` says it (quality/gate_rules.py)."""
    out: list[RiskFlag] = []
    for b in buckets:
        u = b.until_ci
        if u is None or not u.stopped_early:
            continue
        width = (
            ""
            if u.half_width_pct is None
            else f", its {u.at}'s 95 % interval ±{u.half_width_pct:.2f} %"
        )
        text = (
            f"{b.mode} {b.name} is an estimate (--until-ci {u.pct:g} stopped it after "
            f"{u.runs_used} of {u.runs_cap} runs{width}); re-run without --until-ci for the "
            "grader's procedure"
        )
        out.append(RiskFlag(kind=FlagKind.ESTIMATE, text=text, source="latency"))
    return out
