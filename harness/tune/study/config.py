"""What a search is given (:class:`TuneConfig`), what it tells its caller (:class:`TuneHooks`)
and how it measures a candidate (:class:`MeasureTrial`); the search itself:
harness/tune/run/__init__.py."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.profiles import Profile
from harness.tune.record.outcome import TrialResult
from harness.tune.record.report import TrialRecord
from harness.tune.space import Choice, Space
from harness.tune.study.samplers import SamplerName


class MeasureTrial(Protocol):
    """How one candidate is measured: :func:`harness.tune.trial.run_trial` (the seam the bench
    plugs its simulated measurement into, bench/tune_landscape.py)."""

    def __call__(
        self,
        space: Space,
        profile: Profile,
        values: Mapping[str, Choice],
        folder: Path,
        incumbent: float | None,
        *,
        name: str,
        reference: Path | None = None,
        hooks: GateHooks = ...,
    ) -> TrialResult: ...


TRIALS_DIR = "trials"


@dataclass(frozen=True)
class TuneConfig:
    space: Space
    space_text: str  # the file as given, kept in the tune folder for --resume
    profile: Profile
    folder: Path
    sampler: SamplerName = "auto"
    seed: int = 0
    resume: bool = False
    confirm: bool = True  # confirm the winner at the end (--no-confirm: off)
    storage: str | None = None  # a study shared by several workers (None: DIR/study.db)


class TuneHooks:
    """What the search tells its caller; no-ops here (the console's: harness/tune/show/render.py)."""

    def trial_done(self, record: TrialRecord, rank: int | None, total: int) -> None:
        """A trial finished (``rank``: its place among the feasible ones, 1 = best)."""

    def say(self, text: str) -> None:
        """A line for the user."""

    @property
    def steps(self) -> GateHooks:
        """What a trial or a confirmation leg says while it runs: its start, its wait, each
        step's progress (the gate's own hooks)."""
        return NO_HOOKS
