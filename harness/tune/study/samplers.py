"""Which candidate the study asks for next: the parameters as Optuna distributions, the
grid (GridSampler, or :class:`PointGrid` for a space with conditions), and the sampler that
``--sampler`` names (``auto``: grid when the whole grid fits the trial budget, else tpe;
TPE's settings: harness/tune/study/sampling.py).
"""

from __future__ import annotations

from typing import Any, Literal

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.samplers import BaseSampler, GridSampler, RandomSampler
from optuna.trial import TrialState

from harness.errors import UsageError
from harness.tune.space import Choice, Space, conditions
from harness.tune.study import claim
from harness.tune.study.sampling import tpe_sampler

SamplerName = Literal["auto", "grid", "tpe", "random"]


def distributions(space: Space) -> dict[str, BaseDistribution]:
    out: dict[str, BaseDistribution] = {}
    for name, p in space.params.items():
        if isinstance(p, list):
            out[name] = CategoricalDistribution(p)
        elif p.is_int:
            out[name] = IntDistribution(int(p.low), int(p.high), step=int(p.step or 1), log=p.log)
        else:
            out[name] = FloatDistribution(float(p.low), float(p.high), step=p.step, log=p.log)
    return out


def suggest(trial: optuna.Trial, name: str, dist: BaseDistribution) -> Choice:
    """The trial's value for one parameter, through Optuna's public suggest API."""
    if isinstance(dist, CategoricalDistribution):
        value: Any = trial.suggest_categorical(name, list(dist.choices))
        return value
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    assert isinstance(dist, FloatDistribution)
    return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)


def grid_space(space: Space) -> dict[str, list[Choice]]:
    """The grid with each parameter's baseline value first: grid point 0 is the baseline."""
    grid: dict[str, list[Choice]] = {}
    for name, p in space.params.items():
        assert isinstance(p, list)
        first = [v for v in p if name in space.baseline and v == space.baseline[name]]
        grid[name] = first[:1] + [v for v in p if v not in first[:1]]
    return grid


class PointGrid(RandomSampler):
    """The grid of a space with conditions or exclusions: its valid points
    (:meth:`Space.grid_points`, the baseline first, the rest shuffled by the seed) are
    enqueued when the study is created, and each trial takes the next. GridSampler cannot:
    its grid is the full product, inactive and excluded combinations included. Random only
    for a trial that finds the queue empty (another worker took the last point): it draws a
    valid point, measured unless a trial holds it (harness/tune/study/claim.py)."""

    def __init__(self, points: list[dict[str, Choice]], seed: int) -> None:
        super().__init__(seed=seed)
        self.points = points


def points_covered(points: list[dict[str, Choice]], study: optuna.Study) -> bool:
    """Every point measured or being measured (a COMPLETE or RUNNING trial holds it)."""
    states = (TrialState.COMPLETE, TrialState.RUNNING)
    seen = {conditions.point_key(claim.values_of(t)) for t in study.get_trials(states=states)}
    return all(conditions.point_key(p) in seen for p in points)


def choose_sampler(space: Space, name: SamplerName, seed: int) -> tuple[str, BaseSampler]:
    if name == "auto":
        size, cap = space.grid_size(), space.budget.trials
        name = "grid" if size is not None and (cap is None or size <= cap) else "tpe"
    if name == "grid":
        if not space.all_choices():
            ranged = [k for k, p in space.params.items() if not isinstance(p, list)]
            raise UsageError(
                f"--sampler grid needs choice lists; {', '.join(ranged)} are ranges",
                hint="use --sampler tpe or random, or list the values",
            )
        if space.conditional:  # GridSampler's grid is the full product: enqueued points
            return "grid", PointGrid(space.grid_points(seed=seed), seed=seed)
        search: Any = grid_space(space)
        return "grid", GridSampler(search, seed=seed)
    if name == "tpe":
        return "tpe", tpe_sampler(seed)
    return "random", RandomSampler(seed=seed)
