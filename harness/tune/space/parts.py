"""SPACE.toml's parts below the space itself: a parameter (a choice list of one kind, no
value twice, or a range), the budget, the gate's options, ``[confirm]`` and ``[race]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from harness.tune.space.serve import Strict

Choice = str | int | float | bool


class Range(Strict):
    """An int range (``low``/``high`` ints, ``step`` an int or absent) or a float range."""

    low: int | float
    high: int | float
    step: int | float | None = None
    log: bool = False

    @model_validator(mode="after")
    def _sane(self) -> Range:
        if self.high < self.low:
            raise ValueError(f"high {self.high} < low {self.low}")
        if self.step is not None and self.step <= 0:
            raise ValueError("step must be > 0")
        if self.log and self.low <= 0:
            raise ValueError("log needs low > 0")
        if self.log and self.step is not None and not self.is_int:
            raise ValueError("a float range takes step or log, not both")
        return self

    @property
    def is_int(self) -> bool:
        ints = all(isinstance(v, int) for v in (self.low, self.high))
        return ints and (self.step is None or isinstance(self.step, int))


def _kind(value: Choice) -> str:
    if isinstance(value, bool):
        return "boolean"
    return "number" if isinstance(value, int | float) else "string"


def _distinct(values: list[Choice]) -> list[Choice]:
    """Choices of one kind (strings, numbers or booleans), none twice: a repeated value
    would be measured twice, and a mixed list (``[1, "1"]``) means a typo."""
    kinds = sorted({_kind(v) for v in values})
    if len(kinds) > 1:
        raise ValueError(
            f"choices mix {' and '.join(k + 's' for k in kinds)} ({values!r}): give one kind"
        )
    seen: list[Choice] = []
    for v in values:
        if v in seen:
            raise ValueError(f"{v!r} is given twice")
        seen.append(v)
    return values


Param = Annotated[list[Choice], Field(min_length=1), AfterValidator(_distinct)] | Range
# a condition or an exclusion: parameter → a value, or a list of values (any of)
Match = dict[str, Choice | list[Choice]]


class Budget(Strict):
    trials: int | None = Field(None, ge=1)
    minutes: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _some(self) -> Budget:
        if self.trials is None and self.minutes is None:
            raise ValueError("give trials and/or minutes")
        return self


# The gate's options (harness/gate/options.py) that SPACE.toml's [options] does not take,
# and why: every other gate option is a TuneOptions field of the same name, type and choices
# (tests/unit/test_tune_options.py holds both, so a new gate option is a decision here).
NOT_TUNE_OPTIONS: dict[str, str] = {
    "ready_timeout": "[serve] ready_timeout_s: tune starts the server and waits for it itself",
    "wait_for_start": "tune's trial waits for the server it started (the candidate is alive)",
    "no_rtt_probes": "every trial is measured the same way: the RTT probes stay on",
    "quality_only": "a trial is the whole gate: its score is the latency step's",
    "docker_host": "[serve] docker_host: the engine that runs an image candidate",
}


class TuneOptions(Strict):
    """The gate's quick settings, passed to every trial (as ``harness gate`` takes them):
    each field is a gate option of the same name, type and choices; the gate's other
    options are in :data:`NOT_TUNE_OPTIONS` with why."""

    runs: int | None = Field(None, ge=1)
    warmup: int | None = Field(None, ge=0)
    buckets: str | None = None  # a comma list: short,long
    limit: float | None = Field(None, gt=0)
    max_gen_toks: int | None = Field(None, ge=1)
    until_ci: float | None = Field(None, gt=0)
    # what until_ci stops on: the median (default) or a percentile (--until-ci-at)
    until_ci_at: Literal["median", "p90", "p95", "p99"] | None = None
    decide: bool = True  # quality with --decide (tune's default: on)
    data_dir: str | None = None
    tokenizer: str | None = None
    latency_mode: Literal["official", "strict", "both"] | None = None

    @model_validator(mode="after")
    def _until_ci_at(self) -> TuneOptions:
        if self.until_ci_at is not None and self.until_ci is None:
            raise ValueError(
                f"until_ci_at = {self.until_ci_at!r} names what until_ci stops on, and "
                f"until_ci is not set: add until_ci = PCT (e.g. until_ci = 5)"
            )
        return self

    def gate(self) -> dict[str, object]:
        """The gate option mapping (harness/gate/options.py) these settings make."""
        out: dict[str, object] = {k: v for k, v in self.model_dump().items() if v is not None}
        out["decide"] = self.decide
        if self.data_dir is not None:
            out["data_dir"] = Path(self.data_dir)
        return out


class Confirm(Strict):
    """The winner re-measured against the runner-up and the baseline (``rounds = 0``: off)."""

    rounds: int = Field(3, ge=0)

    @field_validator("rounds")
    @classmethod
    def _spread(cls, rounds: int) -> int:
        if rounds == 1:
            raise ValueError("1 round gives no spread to judge a lead by: 0 (off) or 2 and more")
        return rounds


class Race(Strict):
    """``[race]``: stop a candidate's speed measurement once it cannot beat the incumbent
    (harness/tune/trial/race.py). ``max_speedup``: the most any candidate's speedup in one bucket
    can be; with it the race may stop before the last bucket (an assumption: docs/tune.md)."""

    enabled: bool = True
    max_speedup: float | None = Field(None, gt=0)
