"""The confirmation's record in ``tune.json`` (``TuneReport.confirm``) and one leg's
``leg.json`` in its run folder under ``DIR/confirm/``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from harness.tune.record.status import Status

LEG_FILE = "leg.json"


class ConfirmLeg(BaseModel):
    """One fresh restart of one contestant, its speed step measured (``leg.json``)."""

    round: int  # 1-based
    trial: int  # the contestant's trial number
    status: Status  # ok, failed-to-start, crashed, error, void (harness/tune/launch/own.py)
    why: str = ""
    score: float | None = None
    cold_start_s: float | None = None
    folder: str = ""  # relative to the tune folder
    launch: str = ""
    log_tail: str = ""
    slo: str = ""  # why its speed report broke an SLO of SPACE.toml ("": met, or none)


class Contestant(BaseModel):
    trial: int
    role: str  # "winner", "runner-up", "baseline" ("runner-up, baseline" when both)
    note: str  # the diff from the baseline
    status: Status  # the trial's status in the search (a feasible one)
    changes: int  # parameters that differ from the baseline
    search_score: float | None = None
    scores: list[float | None] = Field(default_factory=list)  # its leg's score, round by round
    confirmed_score: float | None = None  # the mean of its legs' scores
    confirmed_ci95: tuple[float, float] | None = None
    cold_start_s: float | None = None  # the median over its legs
    launch: str = ""  # its trial's launch line
    slo: str = ""  # the first SLO one of its legs broke ("": every leg met them)


class Comparison(BaseModel):
    """The winner against one opponent, from the rounds both were measured in."""

    opponent: int
    role: str
    pairs: int
    lead_pct: float | None = None  # geometric mean of winner / opponent − 1, in %
    ci95_pct: tuple[float, float] | None = None
    call: str  # "confirmed", "tie", "overturned", "inconclusive"


class SelectionRecord(BaseModel):
    """The winner's search score against its confirmed score."""

    search_score: float | None = None
    confirmed_score: float | None = None
    gap_pct: float | None = None  # search / confirmed − 1, in %
    luck: str = "unknown"  # "lucky", "unlucky", "within", "unknown"


class ConfirmRecord(BaseModel):
    rounds: int
    complete: bool = True  # False: interrupted before every leg was measured
    skipped: str = ""  # why nothing was confirmed (one candidate, no speed step)
    winner: int | None = None  # the search's best trial
    min_effect_pct: float = 0.0
    contestants: list[Contestant] = Field(default_factory=list)
    legs: list[ConfirmLeg] = Field(default_factory=list)
    comparisons: list[Comparison] = Field(default_factory=list)
    call: str = ""  # the winner against the runner-up (a Comparison's call)
    selection: SelectionRecord | None = None
    pick: int | None = None  # the trial to take away (None: every one broke an SLO)
    pick_by: str = ""  # why that one ("confirmed", "the simpler diff from the baseline …")
    pick_command: str | None = None  # its launch line
    minutes: float | None = None
