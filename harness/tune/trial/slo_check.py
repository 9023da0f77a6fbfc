"""SPACE.toml's SLOs (harness/tune/space/slo.py) judged on a trial's latency report after its
speed step (pure: the report in, the checks out). docs/tune.md, "SLOs".

A ``max`` on a percentile (p90, p95, p99) is a fixed bound on a tail: it is met only when
the samples show it at 99 % by MLPerf LoadGen's rule (harness/stats/tails.py: ``check_bound``),
never by the empirical percentile of a few runs (with none over it, a p99 needs 459
samples). ITL, summarised per bucket, is held to its conservative estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.latency.report import BucketResult, LatencyReport
from harness.stats.summary import Dist
from harness.stats.tails import check_bound
from harness.tune.space.slo import STREAMED, Bound, Slo


@dataclass(frozen=True)
class SloCheck:
    """One SLO in one bucket: the measured value, the limit it was held to, and the verdict."""

    slo: int  # its index in the file
    text: str  # the SLO as written (``p99_ttft_ms ≤ 800 in long``)
    bucket: str
    value: float | None  # None: not measured
    limit: float | None  # None: a baseline bound with no baseline measurement
    side: Literal["max", "min"]
    ok: bool
    why: str  # "" when ok
    samples: int | None = None  # a tail: the samples the bound was checked on
    over: int | None = None  # a tail: how many were over it (None: ITL, by its estimate)

    def as_dict(self) -> dict[str, object]:
        return {
            "samples": self.samples,
            "over": self.over,
            "slo": self.slo,
            "text": self.text,
            "bucket": self.bucket,
            "value": self.value,
            "limit": self.limit,
            "side": self.side,
            "ok": self.ok,
            "why": self.why,
        }


def _bucket(buckets: Sequence[BucketResult], name: str) -> BucketResult | None:
    return next((b for b in buckets if b.name == name), None)


_ROW_FIELD = {"e2e": "e2e_ms", "ttft": "ttft_ms", "tpot": "tpot_ms"}


def _dist(
    report: LatencyReport, metric: str, bucket: str
) -> tuple[BucketResult | None, Dist | None]:
    _, quantity, _ = metric.split("_")
    b = _bucket(report.strict if quantity in STREAMED else report.buckets(), bucket)
    dist = None if b is None else b.e2e if quantity == "e2e" else getattr(b, quantity)
    return b, dist


def tail_samples(report: LatencyReport, metric: str, bucket: str) -> list[float] | None:
    """The per-request values a tail metric's bucket was summarised from (the timed
    successes of its mode); None for ITL (kept per bucket only) or a report without rows."""
    quantity = metric.split("_")[1]
    b, _ = _dist(report, metric, bucket)
    if b is None or quantity not in _ROW_FIELD or not report.requests:
        return None
    field = _ROW_FIELD[quantity]
    rows = [r for r in report.requests if r.bucket == bucket and r.mode == b.mode]
    values = (getattr(r, field) for r in rows if r.phase == "timed" and r.ok)
    return [float(v) for v in values if v is not None]


def metric_value(report: LatencyReport, metric: str, bucket: str) -> float | None:
    """``metric`` in ``bucket`` of ``report`` (None: not measured there)."""
    if metric == "speedup":
        b = _bucket(report.buckets(), bucket)
        return b.speedup if b is not None else None
    stat = metric.split("_")[0]
    _, dist = _dist(report, metric, bucket)
    value = getattr(dist, stat) if dist is not None else None
    return float(value) if value is not None else None


def bound_limit(
    bound: Bound, slo: Slo, bucket: str, side: str, reference: LatencyReport | None
) -> float | None:
    """The number ``bound`` stands for in ``bucket``: itself, or the baseline trial's value
    (``reference``) with ``slack_pct``; None: a baseline bound with no baseline measured."""
    if not isinstance(bound, str):
        return float(bound)
    base = metric_value(reference, slo.metric, bucket) if reference is not None else None
    if base is None:
        return None
    factor = 1 + slo.slack_pct / 100 if side == "max" else 1 - slo.slack_pct / 100
    return base * factor


def _unit(metric: str) -> str:
    return "×" if metric == "speedup" else " ms"


def check_slos(
    slos: Sequence[Slo], report: LatencyReport, reference: LatencyReport | None
) -> list[SloCheck]:
    """Every SLO in every bucket it names (absent: every bucket the report scored), against
    ``report``; ``reference``: the baseline trial's report, for ``"baseline"`` bounds."""
    out: list[SloCheck] = []
    for i, slo in enumerate(slos):
        names = [slo.bucket] if slo.bucket else [b.name for b in report.buckets()]
        for name in names:
            value = metric_value(report, slo.metric, name)
            for side, bound in (("max", slo.max), ("min", slo.min)):
                if bound is None:
                    continue
                limit = bound_limit(bound, slo, name, side, reference)
                if slo.tail is not None and value is not None and limit is not None:
                    out.append(_judge_tail(i, slo, name, value, limit, report))
                else:
                    out.append(_judge(i, slo, name, value, limit, side))
    return out


def _judge(
    i: int, slo: Slo, bucket: str, value: float | None, limit: float | None, side: str
) -> SloCheck:
    unit, f = _unit(slo.metric), ".3f" if slo.metric == "speedup" else ".1f"
    head = f"slo[{i}] {slo.text()}"
    if value is None:
        why = f"{head}: {slo.metric} not measured in {bucket}"
    elif limit is None:
        why = f"{head}: no baseline measurement of {slo.metric} in {bucket} to compare with"
    elif (value > limit) if side == "max" else (value < limit):
        op = ">" if side == "max" else "<"
        why = f"{head}: measured {value:{f}}{unit} {op} {limit:{f}}{unit} in {bucket}"
    else:
        why = ""
    return SloCheck(
        slo=i,
        text=slo.text(),
        bucket=bucket,
        value=value,
        limit=limit,
        side="max" if side == "max" else "min",
        ok=not why,
        why=why,
    )


def _judge_tail(
    i: int, slo: Slo, bucket: str, value: float, limit: float, report: LatencyReport
) -> SloCheck:
    """A ``max`` on a percentile, a fixed bound: met when its samples show it at 99 %."""
    p = slo.tail or 0.0
    xs = tail_samples(report, slo.metric, bucket)
    over: int | None
    if xs is not None:
        chk = check_bound(xs, p, limit)
        ok, n, over, said = chk.met, chk.n, chk.over, chk.text(" ms")
    else:  # ITL: its conservative estimate (one rank stricter than counting samples over)
        _, dist = _dist(report, slo.metric, bucket)
        claim = dist.tail(slo.metric.split("_")[0]) if dist is not None else None
        n, over = (claim.n if claim is not None else 0), None
        ok = claim is not None and claim.estimate is not None and claim.estimate <= limit
        pct = slo.metric.split("_")[0]
        said = (
            f"{pct} ≤ {limit:g} ms shown at 99 %: its estimate {claim.text()}"
            if ok and claim is not None
            else f"{pct} ≤ {limit:g} ms not shown: {claim.text() if claim else 'no samples'}"
        )
    return SloCheck(
        slo=i,
        text=slo.text(),
        bucket=bucket,
        value=value,
        limit=limit,
        side="max",
        ok=ok,
        why="" if ok else f"slo[{i}] {slo.text()}: {said} in {bucket}",
        samples=n,
        over=over,
    )


def failed_why(checks: Sequence[SloCheck]) -> str | None:
    """The trial's why when an SLO is violated (the first, and how many more); None: all met."""
    failed = [c for c in checks if not c.ok]
    if not failed:
        return None
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    return failed[0].why + more
