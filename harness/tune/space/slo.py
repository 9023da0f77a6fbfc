"""SLOs written in SPACE.toml (``[[slo]]``): what each declares (docs/tune.md, "SLOs"); they
are judged on a trial's latency report by harness/tune/trial/slo_check.py.

A metric is ``speedup`` (the grader's ``baseline_ms / median`` per bucket) or
``STAT_QUANTITY_ms``: STAT one of mean, median, p90, p95, p99; QUANTITY one of ``e2e`` (the
scored mode's end-to-end latency: official when measured), ``ttft``, ``tpot``, ``itl``
(streamed: the strict mode's, so the latency mode must include strict). A bound is a
number or ``"baseline"``: the baseline trial's own value of that metric in that bucket,
times ``1 ± slack_pct / 100``.

A percentile (p90, p95, p99) is a tail, and a ``max`` on it a fixed bound (how it is
judged: harness/tune/trial/slo_check.py).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.stats.tails import PERCENTILES

STATS = ("mean", "median", "p90", "p95", "p99")
QUANTITIES = ("e2e", "ttft", "tpot", "itl")
STREAMED = frozenset({"ttft", "tpot", "itl"})  # measured by the strict mode only
METRICS = ("speedup", *(f"{s}_{q}_ms" for q in QUANTITIES for s in STATS))
Bound = float | str  # a number, or "baseline"


class Slo(BaseModel):
    """One ``[[slo]]`` entry: ``metric`` within ``max`` and/or ``min`` in ``bucket`` (absent:
    every measured bucket)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    bucket: str | None = None
    max: Bound | None = None
    min: Bound | None = None
    slack_pct: float = Field(0.0, ge=0)  # a "baseline" bound's tolerance, in %

    @field_validator("metric")
    @classmethod
    def _known(cls, metric: str) -> str:
        if metric not in METRICS:
            raise ValueError(
                f"unknown metric {metric!r}: speedup or STAT_QUANTITY_ms with STAT in "
                f"{'/'.join(STATS)} and QUANTITY in {'/'.join(QUANTITIES)} (e.g. p99_ttft_ms)"
            )
        return metric

    @field_validator("max", "min")
    @classmethod
    def _bound(cls, bound: Bound | None) -> Bound | None:
        if isinstance(bound, str) and bound != "baseline":
            raise ValueError(f'{bound!r}: a number, or "baseline" (the baseline trial\'s value)')
        return bound

    @model_validator(mode="after")
    def _bounded(self) -> Slo:
        if self.max is None and self.min is None:
            raise ValueError(f"{self.metric}: give max and/or min")
        if self.tail is not None and self.min is not None:
            raise ValueError(
                f"{self.metric}: a percentile takes a max (a bound on the tail); for a lower "
                "bound use median or mean"
            )
        return self

    @property
    def tail(self) -> float | None:
        """The percentile (0.99 for ``p99_…``) of a tail metric; None for the others."""
        return PERCENTILES.get(self.metric.split("_")[0])

    @property
    def streamed(self) -> bool:
        return self.metric != "speedup" and self.metric.split("_")[1] in STREAMED

    @property
    def uses_baseline(self) -> bool:
        return "baseline" in (self.max, self.min)

    def text(self) -> str:
        where = f" in {self.bucket}" if self.bucket else " in every bucket"
        parts = [f"≤ {_bound_text(self.max, self.slack_pct, 1)}"] if self.max is not None else []
        if self.min is not None:
            parts.append(f"≥ {_bound_text(self.min, self.slack_pct, -1)}")
        return f"{self.metric} {' and '.join(parts)}{where}"


def _bound_text(bound: Bound, slack_pct: float, sign: int) -> str:
    if not isinstance(bound, str):
        return f"{bound:g}"
    return "the baseline's" + (f" {'+' if sign > 0 else '−'}{slack_pct:g} %" if slack_pct else "")
