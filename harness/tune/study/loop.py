"""One step of the search loop: Optuna's ``optimize`` for one trial, its books kept
(harness/tune/study/books.py), then its place announced."""

from __future__ import annotations

from collections.abc import Callable

import optuna
from optuna.distributions import BaseDistribution

from harness.tune.study.books import announce, measure_trial
from harness.tune.study.config import MeasureTrial, TuneConfig, TuneHooks


def one(
    cfg: TuneConfig,
    study: optuna.Study,
    dists: dict[str, BaseDistribution],
    hooks: TuneHooks,
    measure: MeasureTrial,
    progress: Callable[[], None],
) -> None:
    box: list[tuple[int, float]] = []

    def objective(trial: optuna.Trial) -> float:
        return measure_trial(cfg, study, dists, trial, measure, box, hooks, progress)

    # optimize (one trial at a time) rather than ask/tell: a sampler may stop the study from
    # inside it (GridSampler, once the grid is done); Ctrl-C leaves the trial FAIL
    study.optimize(objective, n_trials=1, catch=())
    for number, _ in box:
        announce(study, number, hooks)
