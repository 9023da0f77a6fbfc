"""Latency's keys of a ledger line, as records (its summary facet fills them:
harness/latency/summary.py; the ledger's ranking reads them: harness/latency/ranking.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.view.summary import ScoreMode


class BucketMedian(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str
    mode: Literal["official", "strict"]
    median_ms: float | None = None
    baseline_ms: float | None = None
    speedup: float | None = None
    n_ok: int = 0
    n_failed: int = 0


class Procedure(BaseModel):
    """How latency was measured (its ``settings``): what decides whether it is the grader's."""

    model_config = ConfigDict(extra="ignore")

    runs: int | None = None  # timed requests per bucket
    warmup: int | None = None
    buckets: list[str] = Field(default_factory=list)
    official: bool | None = None  # the report's own ``official_procedure`` (None: not recorded)
    until_ci: float | None = None  # --until-ci PCT (buckets may stop early: an estimate)


class LatencyLedger(BaseModel):
    """Latency's keys of a ledger line."""

    model_config = ConfigDict(extra="ignore")

    buckets: list[BucketMedian] = Field(default_factory=list)
    score: float | None = None
    score_ci95: tuple[float, float] | None = None
    score_mode: ScoreMode | None = None
    procedure: Procedure | None = None  # its settings (None: no latency or none recorded)
    strict_score: float | None = None

    def medians(self, mode: str) -> dict[str, BucketMedian]:
        return {b.name: b for b in self.buckets if b.mode == mode}

    @property
    def scored_mode(self) -> ScoreMode:
        """The mode its bucket columns and ★ read: the score's, official when unscored."""
        return self.score_mode or "official"
