"""Racing on a tail SLO: stop a trial's speed measurement once an ``[[slo]]`` on a
percentile (``p90_ttft_ms ≤ 80``) cannot be met (pure rule, and its feed from the rows).

Two reasons stop it, and only these (docs/tune.md, "Racing on a tail SLO"):

* **Cannot be shown met by this run.** The SLO is checked at the end by LoadGen's
  fixed-bound rule (harness/stats/tails.py: met when the samples over the bound are at most
  ``over_allowed(n)``). The count over the bound only grows, and a full run of ``cap``
  runs allows at most ``over_allowed(cap)``: once more are over, the end-of-run check must
  fail whatever the remaining runs give. Deterministic: the trial's verdict is the one the
  full run would have reached, for fewer requests.
* **Certainly broken.** The one-sided anytime-valid sequence of the percentile
  (harness/stats/quantile_sequence.py: ``lower_boundary``) puts a lower bound
  ``X_(l_n)`` under the true percentile at every look at once with probability
  >= 1 - alpha / k (k: the tail SLO checks of the trial, one per SLO and bucket). When
  that bound is above the SLO's, the true percentile is too: a trial whose true
  percentile meets the bound is stopped with probability <= alpha (5 %, as the race's),
  however the stopping time falls (independent requests).

Neither stops a trial whose samples could still meet the SLO. ITL (one value per token
gap, summarised per bucket, correlated within a request) is not raced, and a
``"baseline"`` bound only once the baseline trial has been measured.
No I/O, no clocks: tested with literal samples (tests/unit/test_tune_tail_race.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.latency.config import LatencyConfig
from harness.latency.report import LatencyReport, RequestRow
from harness.stats.median_sequence import ALPHA, BUDGET, MIN_RUNS
from harness.stats.quantile_sequence import LowerBoundary, lower_boundary
from harness.stats.tails import CONFIDENCE, over_allowed
from harness.tune.space.slo import STREAMED, Slo
from harness.tune.trial.slo_check import bound_limit

# the per-request figure each quantity's samples are (ITL has none: not raced)
_FIELD = {"e2e": "e2e_ms", "ttft": "ttft_ms", "tpot": "tpot_ms"}


@dataclass(frozen=True)
class TailWatch:
    """One tail SLO in one bucket, as the race watches it."""

    slo: int  # its index in SPACE.toml
    text: str  # as written (``p90_ttft_ms ≤ 80 in short``)
    bucket: str
    mode: str  # the latency mode whose timed successes are its samples
    field: str  # the row's figure: ttft_ms, tpot_ms, e2e_ms
    p: float  # the percentile (0.9)
    limit: float  # the bound, in ms


@dataclass(frozen=True)
class TailLook:
    """The rule's answer for one watch after ``n`` samples."""

    n: int
    over: int  # samples above the bound
    lower: float | None  # the anytime-valid lower bound of the percentile (None: none yet)
    stop: bool
    why: str  # "" when it goes on


def tail_look(
    w: TailWatch, xs: Sequence[float], cap: int, seq: LowerBoundary, alpha: float = ALPHA
) -> TailLook:
    """Stop or go on, from the watch's samples so far (its bucket's timed successes, in order
    of arrival), the runs a full bucket makes (``cap``) and the watch's lower sequence."""
    n = len(xs)
    over = sum(1 for x in xs if x > w.limit)
    rank = seq.rank(n)
    lower = sorted(xs)[rank - 1] if rank else None
    pct, head = f"p{w.p * 100:g}", f"slo[{w.slo}] {w.text}"
    after = f"after {n} of {cap} runs in {w.bucket}"
    allowed = over_allowed(cap, w.p)
    if over >= 1 and over > allowed:
        why = (
            f"{head}: cannot be shown met: {over} of {n} samples over {w.limit:g} ms, and "
            f"{cap} runs may hold at most {max(allowed, 0)} to show it at "
            f"{CONFIDENCE:.0%} ({after})"
        )
    elif lower is not None and lower > w.limit:
        why = (
            f"{head}: broken: {pct} ≥ {lower:.1f} ms > {w.limit:g} ms at "
            f"{(1 - alpha) * 100:g} % (anytime-valid lower bound from {n} samples, "
            f"{after})"
        )
    else:
        why = ""
    return TailLook(n=n, over=over, lower=lower, stop=bool(why), why=why)


def tail_watches(
    slos: Sequence[Slo], cfg: LatencyConfig, reference: LatencyReport | None
) -> list[TailWatch]:
    """The tail SLOs a latency run can be raced on: a ``max`` on p90/p95/p99 of e2e, ttft or
    tpot, in each bucket it names that ``cfg`` measures, in the mode its samples come from
    (streamed: strict; e2e: the scored mode); ``reference``: the baseline trial's report."""
    measured = [b.name for b in cfg.buckets]
    scored = "strict" if cfg.mode == "strict" else "official"
    out: list[TailWatch] = []
    for i, slo in enumerate(slos):
        quantity = slo.metric.split("_")[1] if slo.metric != "speedup" else ""
        if slo.tail is None or slo.max is None or quantity not in _FIELD:
            continue
        mode = "strict" if quantity in STREAMED else scored
        if cfg.mode not in (mode, "both"):
            continue
        for bucket in [slo.bucket] if slo.bucket else measured:
            limit = bound_limit(slo.max, slo, bucket, "max", reference)
            if bucket not in measured or limit is None:
                continue
            out.append(
                TailWatch(
                    slo=i,
                    text=slo.text(),
                    bucket=bucket,
                    mode=mode,
                    field=_FIELD[quantity],
                    p=slo.tail,
                    limit=limit,
                )
            )
    return out


class TailRace:
    """A trial's tail-SLO race: the latency run's stop rule (harness/latency/stop_rule.py);
    each watch at its share ``alpha / k`` of the error."""

    def __init__(self, watches: Sequence[TailWatch], cap: int, alpha: float = ALPHA) -> None:
        self.watches = list(watches)
        self.cap = cap
        self.alpha = alpha
        k = max(1, len(self.watches))
        self.seqs = {
            w.p: lower_boundary(cap, w.p, MIN_RUNS, alpha / k, min(BUDGET, alpha) / k)
            for w in self.watches
        }
        self.values: list[list[float]] = [[] for _ in self.watches]
        self.last: TailLook | None = None

    def after(self, row: RequestRow) -> str | None:
        """One timed request ended: why to stop now (None: go on)."""
        if not row.ok:
            return None
        for w, xs in zip(self.watches, self.values, strict=True):
            value = getattr(row, w.field)
            if row.mode != w.mode or row.bucket != w.bucket or value is None:
                continue
            xs.append(float(value))
            look = tail_look(w, xs, self.cap, self.seqs[w.p], self.alpha)
            if look.stop:
                self.last = look
                return look.why
        return None

    @property
    def stopped(self) -> str | None:
        return self.last.why if self.last is not None else None


def tail_race(slos: Sequence[Slo], cfg: LatencyConfig, reference: Path | None) -> TailRace | None:
    """The race of a trial's tail SLOs (None: none to race); ``reference``: the baseline
    trial's folder, whose report bounds the ``"baseline"`` SLOs once it is measured."""
    report = None
    if reference is not None and (reference / LatencyReport.FILENAME).is_file():
        report = LatencyReport.load(reference)
    watches = tail_watches(slos, cfg, report)
    return TailRace(watches, cfg.runs) if watches else None
