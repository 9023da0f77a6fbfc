"""``--until-ci PCT``: when a bucket stops, and what its report says about it.

The runner asks a :class:`Stopper` after every timed request; the report's per-bucket
:class:`~harness.latency.report.UntilCi` record is rebuilt from the measured rows by
:func:`until_ci_record` (so a partial or interrupted run says the same), and a bucket
stopped before its cap is an estimate, not the grader's procedure: :func:`until_ci_flag`
(an ``estimate`` risk flag, as quality's ``--decide`` raises).
The statistics are in harness/stats/median_sequence.py (the median) and
harness/stats/quantile_sequence.py (``--until-ci-at`` a percentile), pure; docs/timing.md
says why they hold under optional stopping.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.latency.report import BucketResult, RequestRow, StopReason, UntilCi
from harness.risk import FlagKind, RiskFlag
from harness.stats.median_sequence import MIN_RUNS, Boundary, Look, boundary, look
from harness.stats.quantile_sequence import (
    QuantileBoundary,
    QuantileLook,
    quantile_boundary,
    quantile_look,
)
from harness.stats.tails import PERCENTILES
from harness.view import fmt

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


def interval_words(at: str, value: float | None, interval: tuple[float, float] | None) -> str:
    """``p90 150 ms, 95 % interval 149–151 ms (−0.62 % / +1.00 %)``: every display of a
    --until-ci interval names its statistic and shows both sides (an interval around a tail
    is rarely symmetric). The console's line, the record's ``why`` and the flag say this."""
    if value is None:
        return f"no successful run, no {at}"
    head = f"{at} {fmt.ms(value)} ms"
    if interval is None:
        return f"{head}, no 95 % interval yet"
    return f"{head}, 95 % interval {fmt.span(interval)} ms ({fmt.around(value, interval)})"


def _interval(lk: AnyLook) -> tuple[float, float] | None:
    return (lk.lo, lk.hi) if lk.lo is not None and lk.hi is not None else None


def _why(
    pct: float,
    words: str,
    has_interval: bool,
    stopped: StopReason,
    runs: int,
    cap: int,
) -> str:
    if stopped == "narrow":
        return f"stopped after {runs} of {cap} runs: {words}, within ±{pct:g} %"
    if stopped == "cap":
        return f"ran all {cap} runs: {words}" + (f", wider than ±{pct:g} %" if has_interval else "")
    return f"interrupted after {runs} of {cap} runs: {words}"


def why(b: BucketResult) -> str:
    """The record's sentence, said again from its fields and the bucket's figure (so a
    report written before the sentence named its statistic reads as a new one)."""
    u = b.until_ci
    if u is None:
        return ""
    words = interval_words(u.at, stopped_at(b), u.interval_ms)
    return _why(u.pct, words, u.interval_ms is not None, u.stopped, u.runs_used, u.runs_cap)


def stopped_at(b: BucketResult) -> float | None:
    """The figure a bucket's --until-ci interval is of: its median or its ``at`` percentile,
    computed from the same timed successes as the look at the stop."""
    u = b.until_ci
    if u is None or u.at == "median":
        return b.median_ms
    return getattr(b.e2e, u.at, None)


def until_ci_record(
    rows: Sequence[RequestRow], pct: float, cap: int, at: str = "median"
) -> UntilCi:
    """The record of one bucket from its rows (timed rows in the order they were sent)."""
    timed = [r for r in rows if r.phase == "timed"]
    values = [r.e2e_ms for r in timed if r.ok and r.e2e_ms is not None]
    bound = _boundary(cap, at)
    lk = _look(values, bound, pct)
    stopped: StopReason = "narrow" if lk.narrow else "cap" if len(timed) >= cap else "interrupted"
    interval = _interval(lk)
    return UntilCi(
        pct=pct,
        runs_used=len(timed),
        runs_cap=cap,
        n_ok=len(values),
        interval_ms=interval,
        half_width_pct=lk.half_width_pct,
        stopped=stopped,
        why=_why(
            pct,
            interval_words(at, lk.value, interval),
            interval is not None,
            stopped,
            len(timed),
            cap,
        ),
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
        words = interval_words(u.at, stopped_at(b), u.interval_ms)
        text = (
            f"{b.mode} {b.name} is an estimate: --until-ci {u.pct:g} stopped it after "
            f"{u.runs_used} of {u.runs_cap} runs at {words}; re-run without --until-ci for "
            "the grader's procedure"
        )
        out.append(RiskFlag(kind=FlagKind.ESTIMATE, text=text, source="latency"))
    return out
