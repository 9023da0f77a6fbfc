"""The generic records of a comparison: the verdict words, a score's and a paired mean's
difference, and the base of one kind's section of ``compare.json``.

Every difference is B − A: for latency a positive difference means B is slower,
for scores and throughput a positive difference means B is higher.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Verdict = Literal["faster", "slower", "higher", "lower", "within noise", "inconclusive", "no data"]


class CompareSection(BaseModel):
    """One kind's part of a comparison (``compare.json``'s ``sections[kind]``): its
    comparison (``harness/<pkg>/compare.py``) returns it, its views draw it."""

    model_config = ConfigDict(extra="forbid")


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


class PairedMean(BaseModel):
    """A per-sample quantity paired by id: means of A and B, mean of B − A, its CI."""

    metric: str  # "ttft_ms" | "tok_s"
    n_pairs: int
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    diff_pct: float | None
    ci95: tuple[float, float] | None
    verdict: Verdict
