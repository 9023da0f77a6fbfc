"""``quality.json``: per benchmark score, metric, threshold, verdict and how it was measured."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from harness.report_base import Migration, Report

SCORE_DIGITS = 4  # the grader saves and judges round(score, 4): 0.62096 passes 0.621


class ThinkingSummary(BaseModel):
    answers: int
    lost_to_budget: int  # no closing think tag when max_tokens ran out: no answer
    think_tokens_mean: float | None
    extracted: int  # answers the benchmark's filter extracted a choice from


SettledBy = Literal["certain", "risk", "complete", "grader_abort"]


class DecideRecord(BaseModel):
    """How ``--decide`` settled a benchmark (docs/quality.md, Deciding early)."""

    asked: int  # documents asked (in the seeded random order)
    total: int  # documents under the run's limit: what the full run asks
    decision: Literal["pass", "fail"]
    # certain: no answer of the unasked documents could change it; risk: settled at
    # risk < alpha; complete: every document was asked, the score is the full set's
    settled_by: SettledBy
    risk: float | None = None  # bound on the chance the full set lands on the other side
    alpha: float
    projected: float  # the full-set score projected from the documents asked
    ci_low: float  # anytime-valid 95 % interval of the full-set score
    ci_high: float
    looks: int  # times the decision was checked (one lm-eval evaluation each)

    @property
    def stopped_early(self) -> bool:
        return self.asked < self.total


class BenchmarkResult(BaseModel):
    name: str
    title: str
    task: str
    metric: str
    threshold: float
    baseline: float | None = None
    score: float | None = None  # harness's own: unrounded
    rounded_score: float | None = None  # the grader's: round(score, SCORE_DIGITS), what it judges
    passed: bool | None = None  # rounded_score >= threshold and the grader's run would not abort
    n: int = 0  # documents scored
    thinking: bool = False
    client: str = ""
    max_tokens_official: int | None = None  # what the grader would send (None: task's own)
    max_tokens_sent: int | None = None  # what this run sent (differs with --max-gen-toks)
    stream: bool = False
    requests: int = 0
    cached: int = 0  # answers taken from the resume cache, not asked again
    errors: int = 0  # requests that failed every attempt: empty answers, scored as wrong
    retries: int = 0  # failed attempts that were retried
    error_kinds: dict[str, int] = Field(default_factory=dict)
    empty_answers: int = 0
    wall_s: float = 0.0
    concurrency_max: int = 0
    concurrency_mean: float = 0.0
    subtasks: dict[str, float] = Field(default_factory=dict)
    other_metrics: dict[str, float] = Field(default_factory=dict)
    thinking_stats: ThinkingSummary | None = None
    samples_file: str | None = None
    error: str | None = None  # why no score (the run stopped in this benchmark)
    grader_aborts: int = 0  # requests on which the grader's script would die
    grader_abort: str | None = None  # the first such: the grader gets NO score here
    decide: DecideRecord | None = None  # --decide: documents asked, projection, decision

    def set_score(self, raw: float) -> None:
        """Keep the raw score and judge the grader's rounded one, as its script does."""
        self.score = raw
        self.rounded_score = round(raw, SCORE_DIGITS)
        self.judge()

    @property
    def judged_score(self) -> float | None:
        """The score the gate compares: the grader's rounded one (raw in older reports)."""
        return self.rounded_score if self.rounded_score is not None else self.score

    def judge(self) -> None:
        judged = self.judged_score
        if judged is None:
            self.passed = None
            return
        if self.decide is not None and self.decide.stopped_early:
            # an early-stopped --decide run is judged by its settled decision
            self.passed = self.decide.decision == "pass" and self.grader_abort is None
            return
        self.passed = judged >= self.threshold and self.grader_abort is None


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 added ``decide_seed`` and each benchmark's ``decide`` (``--decide``); a
    schema-1 report was a full run: both are absent, nothing to change."""
    return data


class QualityReport(Report):
    SCHEMA_VERSION: ClassVar[int] = 2
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2}
    FILENAME: ClassVar[str] = "quality.json"

    kind: str = "quality"
    url: str = ""
    endpoint: str = "/invocations"
    model: str = ""
    official: bool = True
    non_official: dict[str, Any] = Field(default_factory=dict)  # settings the grader does not use
    limit: float | int | None = None
    lm_eval_version: str = ""
    server_fingerprint: str = ""
    data_dir: str = ""  # the data folder, or the HF datasets cache (data_route "hf-cache")
    data_route: str = "jsonl"  # "hf-cache": lm-eval's own tasks on the HF cache, as the grader
    decide_seed: int | None = None  # --decide: the documents' order seed (--seed replays it)
    benchmarks: list[BenchmarkResult] = Field(default_factory=list)
    passed: bool | None = None
    wall_s: float = 0.0

    def verdict(self) -> bool | None:
        scores = [b.passed for b in self.benchmarks]
        if not scores or any(p is None for p in scores):
            return None
        return all(bool(p) for p in scores)
