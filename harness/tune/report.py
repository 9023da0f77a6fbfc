"""``tune.json``: every trial, the best feasible one and its exact launch command."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, Field

from harness.report_base import Report
from harness.tune.space import Choice


class TrialRecord(BaseModel):
    number: int
    params: dict[str, Choice]
    note: str  # the parameter diff from the baseline ("baseline" for it)
    status: str  # harness/tune/trial.py Status
    why: str = ""
    score: float | None = None
    feasible: bool = False
    cold_start_s: float | None = None
    minutes: float | None = None
    folder: str | None = None
    launch: str = ""
    log_tail: str = ""


class TuneReport(Report):
    FILENAME: ClassVar[str] = "tune.json"
    SCHEMA_VERSION: ClassVar[int] = 1

    kind: str = "tune"
    name: str
    sampler: str
    score_name: str = ""
    stopped_by: str = ""  # "trials budget", "minutes budget", "grid exhausted", "interrupted"
    trials: list[TrialRecord] = Field(default_factory=list)
    best: TrialRecord | None = None  # the best feasible trial measured in full
    best_command: str | None = None
