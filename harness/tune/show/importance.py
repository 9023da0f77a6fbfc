"""Which parameters moved the score: Optuna's parameter importance (fANOVA, seeded) over the
trials measured in full that are feasible, read from ``tune.json`` and the space.

An importance needs something to explain: at least two feasible trials with a score whose
parameters differ. Otherwise the page says why there is none instead of a number.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution

from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.space import Space

SEED = 0


@dataclass(frozen=True)
class Importance:
    shares: dict[str, float] = field(default_factory=dict)  # parameter → share of the variance
    basis: str = ""  # what it was computed over, or why there is none

    @property
    def known(self) -> bool:
        return bool(self.shares)


def _usable(report: TuneReport) -> list[TrialRecord]:
    return [t for t in report.trials if t.status.feasible and t.score is not None]


def _fits(t: TrialRecord, dists: dict[str, BaseDistribution]) -> bool:
    if not set(t.params) <= set(dists):  # a conditional parameter may be inactive (absent)
        return False
    for name, value in t.params.items():
        dist = dists[name]
        if isinstance(dist, CategoricalDistribution) and value not in dist.choices:
            return False
    return True


def param_importance(report: TuneReport, space: Space | None) -> Importance:
    """The shares, or an empty result whose ``basis`` says why not."""
    if space is None:
        return Importance(basis="not computed: the tune folder holds no readable space.toml")
    from harness.tune.study.samplers import distributions  # the study's own distributions

    dists = distributions(space)
    trials = [t for t in _usable(report) if _fits(t, dists)]
    # the parameters every such trial has (Optuna's intersection search space): an inactive
    # conditional parameter counts only where it is active in all of them
    common = [k for k in dists if all(k in t.params for t in trials)]
    varying = [k for k in common if len({repr(t.params[k]) for t in trials}) > 1]
    if len(trials) < 2 or not varying:
        return Importance(
            basis=(
                "not computed: it needs at least 2 feasible trials with a score whose "
                f"parameters differ; this tune has {len(trials)}"
                + (" and they share every value" if len(trials) >= 2 else "")
            )
        )
    optuna.logging.set_verbosity(logging.WARNING)
    study = optuna.create_study(direction="maximize")
    study.add_trials(
        [
            optuna.trial.create_trial(
                params=dict(t.params),
                distributions={k: dists[k] for k in t.params},
                value=float(t.score or 0.0),
            )
            for t in trials
        ]
    )
    evaluator = optuna.importance.FanovaImportanceEvaluator(seed=SEED)
    shares = optuna.importance.get_param_importances(study, evaluator=evaluator, params=varying)
    return Importance(
        shares={k: float(v) for k, v in shares.items()},
        basis=(
            f"fANOVA (optuna.importance.get_param_importances, seed {SEED}) over the "
            f"{len(trials)} feasible trials' scores; parameters that never varied are left out"
        ),
    )
