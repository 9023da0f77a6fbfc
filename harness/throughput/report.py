"""``throughput.json``: typed, versioned; one row per request and one result per level."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from harness.attribution import AttributionSection
from harness.report_base import Migration, Report
from harness.report_base import Phase as Phase  # re-exported: the runner names it here
from harness.report_base import RequestRow as BaseRequestRow
from harness.risk import RiskFlag, migrate_flags
from harness.stats.summary import Dist
from harness.usage import UsageCheck

Kind = Literal["random", "spot"]


class RequestRow(BaseRequestRow):
    """One throughput request: the shared row plus its level, send/end times and spot check.

    Its prompt tokens are counted as the grader counts them: the chat-templated text of
    its own message (``server_prompt_tokens`` is the server's count of the same).
    """

    level: int
    kind: Kind
    start_ms: float | None = None  # send time, ms after the level's timed start
    end_ms: float | None = None
    think_tag: bool = False  # "<think>" or "</think>" in the answer
    spot_question: str | None = None
    spot_expected: int | None = None
    spot_passed: bool | None = None
    answer_excerpt: str | None = None  # spot checks only


class SpotResult(BaseModel):
    level: int
    index: int
    question: str
    expected: int
    passed: bool
    answer_excerpt: str = ""


class LevelResult(BaseModel):
    concurrency: int
    weight: float
    n_requests: int  # timed, spot checks included
    n_ok: int
    n_failed: int
    wall_s: float | None  # first timed send → last timed response
    prompt_tokens: int  # verified, ok requests
    output_tokens: int  # verified, ok requests
    server_output_tokens: int | None  # sum of usage.completion_tokens (None if any missing)
    tok_s: float | None  # verified (prompt + output) tokens / wall_s
    output_tok_s: float | None
    weighted: float | None  # weight × tok_s
    # usage.completion_tokens judged against the verified count (harness/usage.py):
    usage_mismatches: int  # usage below the verified count beyond the tolerance (a flag)
    usage_unsettled: int = 0  # usage the text cannot explain (special tokens or inflation)
    usage_missing: int
    think_tags: int
    finish_reasons: dict[str, int] = Field(default_factory=dict)
    spot_checks: list[SpotResult] = Field(default_factory=list)
    e2e_ms: Dist = Field(default_factory=Dist)
    output_tokens_per_request: Dist = Field(default_factory=Dist)
    dispatch_lag_ms: Dist = Field(default_factory=Dist)  # every timed request
    # after the first wave: each request due when its worker's previous one ended
    dispatch_lag_steady_ms: Dist = Field(default_factory=Dist)
    first_wave_ms: float | None = None  # the first `concurrency` requests all sent, after t0
    concurrency_max: int = 0
    concurrency_mean: float = 0.0  # time-weighted requests in flight over the level
    # the client's own CPU time during the timed phase, and its share of the wall time:
    # near 1.0 the client, not the server, limits the level (docs/throughput.md)
    client_cpu_s: float | None = None
    client_busy: float | None = None

    @property
    def spot_passed(self) -> bool:
        return all(s.passed for s in self.spot_checks)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2: flags are :class:`RiskFlag` records (schema 1: strings)."""
    data["flags"] = migrate_flags(data.get("flags", []), "throughput")
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3: usage judged by one rule (``levels[].usage_unsettled``, ``usage_checks``)
    and informational ``notes``; older mismatch counts are kept as they were."""
    data.setdefault("usage_checks", [])
    data.setdefault("notes", [])
    return data


def _v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4: ``score_gate``, what zeroes the grader's score that the sweep does not
    measure (none recorded before)."""
    data.setdefault("score_gate", "")
    return data


class ThroughputReport(Report):
    SCHEMA_VERSION: ClassVar[int] = 4
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}
    FILENAME: ClassVar[str] = "throughput.json"

    kind: str = "throughput"
    url: str
    endpoint: str
    model: str
    mode: Literal["official", "strict"]
    official: bool  # every setting is the grader's (levels, counts, lengths, no forcing)
    non_official: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    tokenizer: str = ""
    usage_tolerance_tokens: int = 0
    levels: list[LevelResult] = Field(default_factory=list)
    score: float | None = None  # weighted sum of tok/s over the measured levels
    score_complete: bool = False  # every profile level measured: comparable to the leaderboard
    # what zeroes the grader's score that the sweep does not measure (Paris: its GSM8K gate)
    # and the commands that measure it; "" when nothing does
    score_gate: str = ""
    spot_checks_passed: bool = True
    passed: bool | None = None  # strict mode: spot checks and no failed request
    flags: list[RiskFlag] = Field(default_factory=list)
    chart: str | None = None  # PNG file in the run folder
    wall_s: float | None = None
    attribution: AttributionSection | None = None  # /metrics deltas (docs/attribution.md)
    # usage probes: the server's own token ids against its usage (harness/usage.py)
    usage_checks: list[UsageCheck] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)  # informational lines, not risk flags
    requests: list[RequestRow] = Field(default_factory=list)
