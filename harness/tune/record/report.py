"""``tune.json``: every trial, the best feasible one and its exact launch command."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from harness.report_base import Migration, Report
from harness.tune.record.confirm import ConfirmRecord
from harness.tune.record.status import Status
from harness.tune.space import Choice


class TrialRecord(BaseModel):
    number: int
    params: dict[str, Choice]
    note: str  # the parameter diff from the baseline ("baseline" for it)
    status: Status  # harness/tune/record/status.py
    why: str = ""
    score: float | None = None
    feasible: bool = False
    cold_start_s: float | None = None
    minutes: float | None = None
    folder: str | None = None
    launch: str = ""
    log_tail: str = ""
    bound: float | None = None  # lost-race: the optimistic score bound it was stopped at
    # what qualifies the score while it is not the grader's: its gate's ``score_caveat``
    # (``short only``: options.buckets measure fewer than the profile's), "" when it is
    score_caveat: str = ""
    # every step of its gate plan with its result, by step name in the plan's order (e.g. the
    # audit's ``6 rules judged, none fails (…)``, a deferred step's ``not measured``)
    steps: dict[str, str] = Field(default_factory=dict)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2: ``confirm``, the confirmation of the winner (none before)."""
    data.setdefault("confirm", None)
    return data


def _v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3: each trial's ``score_caveat`` (its gate's; not recorded before: none)."""
    trials = data.get("trials")
    for t in [*(trials if isinstance(trials, list) else []), data.get("best")]:
        if isinstance(t, dict):
            t.setdefault("score_caveat", "")
    return data


class TuneReport(Report):
    FILENAME: ClassVar[str] = "tune.json"
    SCHEMA_VERSION: ClassVar[int] = 3
    MIGRATIONS: ClassVar[dict[int, Migration]] = {1: _v1_to_v2, 2: _v2_to_v3}

    kind: str = "tune"
    name: str
    sampler: str
    score_name: str = ""
    stopped_by: str = ""  # "trials budget", "minutes budget", "grid exhausted", "interrupted"
    trials: list[TrialRecord] = Field(default_factory=list)
    best: TrialRecord | None = None  # the best feasible trial measured in full
    best_command: str | None = None
    # the winner measured again against the runner-up and the baseline (docs/tune.md)
    confirm: ConfirmRecord | None = None

    @property
    def interrupted(self) -> bool:
        """Ctrl-C / SIGTERM stopped the search or the confirmation."""
        return self.stopped_by == "interrupted" or (
            self.confirm is not None and not self.confirm.complete
        )
