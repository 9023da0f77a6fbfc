"""``gate.json``: the verdict, its reasons, and the risk flags."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import BaseModel, Field

from harness.runs import Report


class Verdict(StrEnum):
    PASS = "PASS"
    FAIL = "FAIL"
    INCOMPLETE = "INCOMPLETE"


class Reason(BaseModel):
    """One line of the verdict. ``blocking`` reasons decide it; the rest explain it."""

    source: str  # check | latency | quality | throughput | package | gate
    text: str
    blocking: bool = False
    incomplete: bool = False  # a required measurement is missing or partial


class GateReport(Report):
    FILENAME: ClassVar[str] = "gate.json"
    SCHEMA_VERSION: ClassVar[int] = 1

    kind: str = "gate"
    verdict: Verdict
    strict: bool = False
    reasons: list[Reason] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)  # risk flags (fail the gate only with --strict)
    score: float | None = None  # the competition's score (latency mean speedup / throughput)
    score_name: str = ""
    bucket_speedups: dict[str, float | None] = Field(default_factory=dict)
    quality: dict[str, float | None] = Field(default_factory=dict)
    reports: list[str] = Field(default_factory=list)  # which reports were read
    folder: str = ""

    @property
    def blocking(self) -> list[Reason]:
        return [r for r in self.reasons if r.blocking]
