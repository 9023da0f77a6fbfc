"""When the study stops: its trial or minute budget spent, its grid covered, or (a finite
space under tpe or random) every point measured; '' while it goes on."""

from __future__ import annotations

import itertools
import time

import optuna
from optuna.samplers import BaseSampler, GridSampler
from optuna.trial import TrialState

from harness.tune.space import Space
from harness.tune.study import claim, storage
from harness.tune.study.config import TuneConfig
from harness.tune.study.samplers import PointGrid, grid_space, points_covered


def _done(study: optuna.Study) -> int:
    """Trials measured, and those other workers are measuring now (this worker runs none
    while it checks its budget): a shared trial budget is not overrun."""
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING)))


def _waiting(study: optuna.Study) -> bool:
    return bool(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def _grid_covered(space: Space, study: optuna.Study) -> bool:
    """Every grid point measured (a COMPLETE trial) or being measured by another worker (a
    RUNNING one): the grid is done for this worker."""
    grid = grid_space(space)
    seen = {
        tuple(claim.values_of(t).get(k) for k in grid)
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.RUNNING))
    }
    return all(tuple(p) in seen for p in itertools.product(*grid.values()))


def stop_reason(cfg: TuneConfig, study: optuna.Study, sampler: BaseSampler, t0: float) -> str:
    storage.recover_stale(study)  # a dead worker's RUNNING trial is no point measured
    budget = cfg.space.budget
    if budget.trials is not None and _done(study) >= budget.trials:
        return "trials budget"
    if budget.minutes is not None and (time.monotonic() - t0) / 60 >= budget.minutes:
        return "minutes budget"
    if isinstance(sampler, GridSampler) and _grid_covered(cfg.space, study) and not _waiting(study):
        return "grid exhausted"
    finite = cfg.space.all_choices()
    if finite and not _waiting(study) and points_covered(cfg.space.grid_points(), study):
        # PointGrid: its grid is done; tpe or random: each further draw would be a pruned
        # duplicate, without end
        return "grid exhausted" if isinstance(sampler, PointGrid) else "every point measured"
    return ""
