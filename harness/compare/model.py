"""Typed records of one comparison; ``CompareReport`` is what ``--json`` prints (stable keys).

Every difference is B − A: for latency a positive difference means B is slower,
for scores and throughput a positive difference means B is higher.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from harness.compare.stats import MIN_EFFECT_PCT
from harness.manifest.model import Change
from harness.report_base import Migration, Report

Verdict = Literal["faster", "slower", "higher", "lower", "within noise", "inconclusive", "no data"]


class LatencyDiff(BaseModel):
    """One bucket, one mode, one metric (``e2e`` always; ``ttft`` in strict mode)."""

    mode: Literal["official", "strict"]
    bucket: str
    metric: Literal["e2e", "ttft"]
    n_a: int
    n_b: int
    median_a_ms: float | None
    median_b_ms: float | None
    diff_ms: float | None
    diff_pct: float | None  # of A's median
    ci95_ms: tuple[float, float] | None
    noise_ms: float  # the band a difference must exceed (min effect, between-run spread)
    noise_source: str  # "min-effect 2 %", "drift within runs (4/4 blocks)", "between-run range …"
    verdict: Verdict


class ScoreDiff(BaseModel):
    """A weighted score (latency mean speedup, throughput weighted tok/s), B − A."""

    mode: str
    score_a: float | None
    score_b: float | None
    diff: float | None
    diff_pct: float | None
    ci95: tuple[float, float] | None
    noise: float
    noise_source: str
    verdict: Verdict


class FlippedItem(BaseModel):
    task: str
    doc_id: int | str | None
    index: int | None = None  # instruction index for list-valued metrics (IFEval inst-level)
    correct_a: bool
    correct_b: bool
    answer_a: str
    answer_b: str
    target: str


class QualityDiff(BaseModel):
    benchmark: str
    title: str
    metric: str
    score_a: float | None
    score_b: float | None
    diff: float | None
    n_pairs: int  # items scored in both runs
    both_right: int
    both_wrong: int
    b_only: int  # right in B, wrong in A
    a_only: int  # right in A, wrong in B
    mcnemar_p: float | None  # exact, two-sided; None without per-item samples
    threshold: float
    passed_a: bool | None
    passed_b: bool | None
    pass_probability_b: float | None  # P(full-set score ≥ threshold), docs/compare.md
    n_b: int
    flipped: list[FlippedItem] = Field(default_factory=list)
    note: str = ""


class LevelDiff(BaseModel):
    concurrency: int
    tok_s_a: float | None
    tok_s_b: float | None
    diff: float | None
    diff_pct: float | None
    ci95: tuple[float, float] | None
    # the band a difference must exceed: the runs' drift over waves, or the min effect
    # (schema 2; 0 / "" in a schema-1 compare.json)
    noise: float = 0.0
    noise_source: str = ""
    verdict: Verdict


class PairedMean(BaseModel):
    """A per-sample quantity paired by question_id: means of A and B, mean of B − A, its CI."""

    metric: str  # "ttft_ms" | "tok_s"
    n_pairs: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    diff_pct: float | None
    ci95: tuple[float, float] | None
    verdict: Verdict


class VlmFlip(BaseModel):
    question_id: int | str | None
    correct_a: bool
    correct_b: bool
    prediction_a: str
    prediction_b: str
    answers: list[str] = Field(default_factory=list)


class VlmDiff(BaseModel):
    """AICAS VLM runs paired per sample by question_id (docs/compare.md)."""

    n_pairs: int
    unpaired: int
    ttft: PairedMean
    tok_s: PairedMean
    accuracy_metric: str = "containment"
    accuracy_a: float | None = None
    accuracy_b: float | None = None
    b_only: int = 0
    a_only: int = 0
    mcnemar_p: float | None = None
    flipped: list[VlmFlip] = Field(default_factory=list)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 only adds: a throughput level's noise band (0, unknown) and a verdict word."""
    for level in data.get("throughput") or []:
        if isinstance(level, dict):
            level.setdefault("noise", 0.0)
            level.setdefault("noise_source", "")
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 only adds the manifests' ids and diff (unknown in an older file)."""
    return data


class ManifestDiff(BaseModel):
    """What ran in A and in B (their manifest.json, docs/manifest.md) and what changed."""

    config_a: str | None = None  # config_id; None: no manifest.json in that run
    config_b: str | None = None
    changes: list[Change] = Field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.config_a is not None and self.config_a == self.config_b


class CompareReport(Report):
    """The result of ``harness compare A B`` (also saved as ``compare.json`` with ``--save``)."""

    # 2: the verdict "inconclusive"; LevelDiff.noise / noise_source (docs/compare.md)
    # 3: ``manifest``, the servers' configurations and what changed (docs/manifest.md)
    SCHEMA_VERSION: ClassVar[int] = 3
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2, 2: _v2_to_v3}
    FILENAME: ClassVar[str] = "compare.json"

    kind: str = "compare"
    run_a: str
    run_b: str
    profile: str
    seed: int = 0
    min_effect_pct: float = MIN_EFFECT_PCT
    manifest: ManifestDiff | None = None  # None: written before schema 3
    latency: list[LatencyDiff] = Field(default_factory=list)
    latency_scores: list[ScoreDiff] = Field(default_factory=list)
    quality: list[QualityDiff] = Field(default_factory=list)
    throughput: list[LevelDiff] = Field(default_factory=list)
    throughput_score: ScoreDiff | None = None
    vlm: VlmDiff | None = None
    notes: list[str] = Field(default_factory=list)
