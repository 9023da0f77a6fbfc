"""The records of a conformance run: one :class:`Check` per named check, one :class:`CheckReport`.

A check's result is ``pass``, ``fail``, ``warn`` (worth reading, never fails the
run) or ``skip`` (not run: deselected, or a check it needs failed). The
evidence is what was sent and what came back, cut to a readable excerpt.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from harness.report_base import Report

EXCERPT_CHARS = 300


class Result(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"… (+{len(text) - limit} chars)"


def short(text: str, limit: int = 40) -> str:
    """A quoted, one-line glimpse of generated text for a reason line."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


class Evidence(BaseModel):
    """One exchange with the server: the request as sent and an excerpt of the answer."""

    model_config = ConfigDict(extra="forbid")

    method: str = "POST"
    path: str
    request: str = ""  # the body (excerpt)
    status: int | None = None
    response: str = ""  # the body or the error (excerpt)
    elapsed_ms: float | None = None


class Outcome(BaseModel):
    """What a check function returns; the runner adds name, group, required and timing."""

    model_config = ConfigDict(extra="forbid")

    result: Result
    reason: str
    evidence: list[Evidence] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


def passed(reason: str, evidence: list[Evidence] | None = None, **details: Any) -> Outcome:
    return Outcome(result=Result.PASS, reason=reason, evidence=evidence or [], details=details)


def failed(reason: str, evidence: list[Evidence] | None = None, **details: Any) -> Outcome:
    return Outcome(result=Result.FAIL, reason=reason, evidence=evidence or [], details=details)


def warned(reason: str, evidence: list[Evidence] | None = None, **details: Any) -> Outcome:
    return Outcome(result=Result.WARN, reason=reason, evidence=evidence or [], details=details)


def skipped(reason: str, **details: Any) -> Outcome:
    return Outcome(result=Result.SKIP, reason=reason, details=details)


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    group: str
    title: str
    required: bool
    result: Result
    reason: str  # one line
    evidence: list[Evidence] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    duration_ms: float = 0.0

    @property
    def blocking(self) -> bool:
        """A required check that failed: the run exits 1."""
        return self.required and self.result is Result.FAIL


class CheckReport(Report):
    """``check.json``: every check run against one server, and the verdict."""

    SCHEMA_VERSION: ClassVar[int] = 1
    FILENAME: ClassVar[str] = "check.json"

    kind: str = "check"
    schema_version: int = 1
    url: str
    model: str | None = None  # the model name sent in chat bodies
    tokenizer: str = ""
    server_tokenize: bool = False  # the server answered /tokenize (usage compared to it too)
    readiness_s: float | None = None
    wall_s: float = 0.0
    settings: dict[str, Any] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out = {r.value: 0 for r in Result}
        for c in self.checks:
            out[c.result.value] += 1
        return out

    @property
    def ok(self) -> bool:
        return not any(c.blocking for c in self.checks)

    def failing_required(self) -> list[Check]:
        return [c for c in self.checks if c.blocking]

    def summary_line(self) -> str:
        n = self.counts()
        verdict = (
            "all required checks pass"
            if self.ok
            else f"{len(self.failing_required())} required check(s) FAIL"
        )
        return (
            f"{verdict} — {n['pass']} pass, {n['fail']} fail, {n['warn']} warn, "
            f"{n['skip']} skip in {self.wall_s:.1f} s"
        )
