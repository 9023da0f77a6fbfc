"""``latency.json``: typed, versioned, documented in docs/reports.md."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from harness.attribution import AttributionSection
from harness.latency.network_report import NetworkSection, RowConn
from harness.report_base import Migration, Report
from harness.report_base import RequestRow as BaseRequestRow
from harness.risk import RiskFlag, migrate_flags
from harness.stats.summary import Dist
from harness.usage import UsageCheck


class RequestRow(BaseRequestRow):
    """One latency request: the shared row plus its bucket, mode and stream timings."""

    bucket: str
    mode: Literal["official", "strict"]
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    end_of_stream_ms: float | None = None
    n_chunks: int | None = None
    empty_choices: bool = False  # a 200 without choices, timed as a success (the grader's rule)
    conn: RowConn | None = None  # official: the connection's own stamps (docs/timing.md)


StopReason = Literal["narrow", "cap", "interrupted"]


class UntilCi(BaseModel):
    """One bucket under ``--until-ci PCT``: runs used, the interval and why it stopped.

    The interval is the confidence sequence's (harness/stats/median_sequence.py; for a
    percentile, ``at``, harness/stats/quantile_sequence.py): valid at
    whatever look the bucket stopped. ``stopped``: ``narrow`` (within ±PCT %), ``cap``
    (the run count reached first) or ``interrupted`` (the run was stopped)."""

    pct: float  # the target: half-width within ±pct % of the median
    runs_used: int  # timed requests sent (successes and failures)
    runs_cap: int  # the most it could send (--runs, the profile's 50)
    n_ok: int  # successes the interval is made of
    interval_ms: tuple[float, float] | None = None  # None: too few successes for one
    half_width_pct: float | None = None  # max(median - lo, hi - median) / median, in %
    stopped: StopReason
    why: str  # the sentence the console and the gate show
    rule: str = "median confidence sequence (order statistics, exact band over the looks)"
    floor: int  # no look before this many successes
    alpha: float  # 1 - the promised confidence (0.05: 95 % intervals)
    nominal_level: float  # the per-look level of every look's ranks
    # exact P(some look's interval misses the median): <= the looks' budget, 4.5 % < alpha
    miss_probability: float
    # --until-ci-at: the statistic the interval is of (absent in older reports: the median)
    at: str = "median"

    @property
    def stopped_early(self) -> bool:
        return self.stopped == "narrow" and self.runs_used < self.runs_cap


class BucketResult(BaseModel):
    name: str
    mode: Literal["official", "strict"]
    endpoint: str
    prompt_tokens_nominal: int
    prompt_tokens: int | None  # actual (client tokenizer); official: the filler's count
    max_tokens: int
    baseline_ms: float
    n_ok: int
    n_failed: int
    n_warmup_failed: int = 0
    median_ms: float | None
    median_ci95: tuple[float, float] | None = None
    speedup: float | None
    speedup_ci95: tuple[float, float] | None = None
    e2e: Dist = Field(default_factory=Dist)
    ttft: Dist | None = None
    tpot: Dist | None = None
    itl: Dist | None = None
    dispatch_lag: Dist | None = None
    output_tokens_mean: float | None = None
    output_tokens_min: int | None = None
    n_short_outputs: int = 0  # outputs shorter than max_tokens (early stop / completion cap)
    # usage.completion_tokens judged against the re-tokenised text (harness/usage.py):
    n_usage_mismatch: int = 0  # usage below the text beyond the tolerance (a flag)
    n_usage_unsettled: int = 0  # usage the text cannot explain (special tokens or inflation)
    n_prompt_mismatch: int = 0  # usage.prompt_tokens != exact prompt length (strict)
    errors: dict[str, int] = Field(default_factory=dict)  # error kind → count (timed)
    until_ci: UntilCi | None = None  # only under --until-ci (schema 4)


GapCause = Literal[
    "agree", "early_stop", "prefix_cache", "response_cache", "strict_faster", "no_data"
]


class Gap(BaseModel):
    """Official vs strict for one bucket, and its likely cause (``cause_kind`` for code)."""

    bucket: str
    official_median_ms: float | None
    strict_median_ms: float | None
    official_speedup: float | None
    strict_speedup: float | None
    share_of_official_speedup: float | None  # (S_off - S_strict) / S_off
    cause_kind: GapCause = "agree"
    cause: str  # the explanation the user reads


class Calibration(BaseModel):
    """The harness's own timing error, measured against the simulator's recorded write times."""

    server: str = "harness simulate (subprocess)"
    requests: int = 0
    concurrency: int = 1
    ttft_error_ms: Dist = Field(default_factory=Dist)
    e2e_error_ms: Dist = Field(default_factory=Dist)
    note: str = ""


# Schema-1 gap causes were only text; their first words name the cause.
_CAUSE_PREFIXES: dict[str, GapCause] = {
    "early stop": "early_stop",
    "prefix cache": "prefix_cache",
    "strict is faster": "strict_faster",
    "one mode has no": "no_data",
}


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2: flags are :class:`RiskFlag` records; gaps carry ``cause_kind``."""
    data["flags"] = migrate_flags(data.get("flags", []), "latency")
    gaps = data.get("gaps", [])
    if isinstance(gaps, list):  # anything else is left for validation to refuse
        data["gaps"] = [_gap_v2(g) for g in gaps]
    return data


def _gap_v2(gap: Any) -> Any:
    if not isinstance(gap, dict) or "cause_kind" in gap:
        return gap
    cause = str(gap.get("cause", ""))
    kind = next((k for p, k in _CAUSE_PREFIXES.items() if cause.startswith(p)), "agree")
    return {**gap, "cause_kind": kind}


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3: usage judged by one rule (``n_usage_unsettled``, ``usage_checks``) and
    informational ``notes``. Older reports counted every usage difference as a mismatch:
    their counts are kept as they were, with nothing unsettled and no probe."""
    data.setdefault("usage_checks", [])
    data.setdefault("notes", [])
    return data


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4: buckets may carry ``until_ci`` (absent = every run made, as before)."""
    return data


class LatencyReport(Report):
    FILENAME: ClassVar[str] = "latency.json"
    SCHEMA_VERSION: ClassVar[int] = 4
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}

    kind: str = "latency"
    mode: Literal["official", "strict", "both"]
    settings: dict[str, object] = Field(default_factory=dict)
    readiness_s: float | None = None
    official: list[BucketResult] = Field(default_factory=list)
    strict: list[BucketResult] = Field(default_factory=list)
    score: float | None = None  # official: mean of baseline/median over buckets
    score_ci95: tuple[float, float] | None = None
    strict_score: float | None = None
    gaps: list[Gap] = Field(default_factory=list)
    flags: list[RiskFlag] = Field(default_factory=list)
    calibration: Calibration | None = None
    attribution: AttributionSection | None = None  # /metrics deltas (docs/attribution.md)
    # usage probes: the server's own token ids against its usage (harness/usage.py)
    usage_checks: list[UsageCheck] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # informational lines, not risk flags
    network: NetworkSection | None = None  # loopback or network, and its ESTIMATE
    requests: list[RequestRow] = Field(default_factory=list)

    def buckets(self) -> list[BucketResult]:
        """The buckets that carry the score: official when measured, else strict."""
        return self.official or self.strict
