"""The search: an Optuna study in ``DIR/study.db`` asks for candidates, each is measured by
:func:`harness.tune.trial.run_trial`, and the study is told its score.

Samplers: ``grid`` (every combination of an all-choice space; a grid point equal to a
measured trial, the enqueued baseline, is pruned, not measured again), ``tpe`` (with ``constraints_func``: a trial that failed a gate
or a check, or did not start, is infeasible), ``random``; ``auto`` picks grid when the
whole grid fits the trial budget, else tpe. The baseline is measured first (enqueued). An infeasible trial is told a score of 0 and its constraint 1.

``--resume``: a trial a killed harness left RUNNING is marked FAIL, the server group it
recorded is stopped if still alive, and its parameters are queued again; finished
trials are never measured again.
"""

from __future__ import annotations

import itertools
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
)
from optuna.samplers import BaseSampler, GridSampler, RandomSampler, TPESampler
from optuna.trial import FrozenTrial, TrialState

from harness.errors import ConfigError, UsageError
from harness.profiles import Profile
from harness.tune import candidate
from harness.tune.confirm import confirm_winner
from harness.tune.report import TrialRecord, TuneReport
from harness.tune.space import Choice, Space, load_space
from harness.tune.template import diff_text
from harness.tune.trial import FEASIBLE, preflight, run_trial, trial_folder

SamplerName = Literal["auto", "grid", "tpe", "random"]
SPACE_COPY = "space.toml"
STUDY_DB = "study.db"
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


class TuneHooks:
    """What the search tells its caller; no-ops here (the console's: harness/tune/render.py)."""

    def trial_done(self, record: TrialRecord, rank: int | None, total: int) -> None:
        """A trial finished (``rank``: its place among the feasible ones, 1 = best)."""

    def say(self, text: str) -> None:
        """A line for the user."""


def resume_space(folder: Path) -> tuple[Space, str]:
    path = folder / SPACE_COPY
    if not path.is_file():
        raise UsageError(
            f"{folder} is not a tune folder (no {SPACE_COPY})",
            hint="pass the folder a harness tune wrote",
        )
    return load_space(path), path.read_text(encoding="utf-8")


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


def _constraints(trial: FrozenTrial) -> Sequence[float]:
    return [float(trial.user_attrs.get("constraint", 0.0))]


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
        search: Any = grid_space(space)
        return "grid", GridSampler(search, seed=seed)
    if name == "tpe":
        with warnings.catch_warnings():  # constraints_func is marked experimental in Optuna
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            warnings.simplefilter("ignore", FutureWarning)
            return "tpe", TPESampler(seed=seed, constraints_func=_constraints)
    return "random", RandomSampler(seed=seed)


def _storage(folder: Path) -> str:
    return f"sqlite:///{(folder / STUDY_DB).resolve()}"


def open_study(cfg: TuneConfig, sampler: BaseSampler, sampler_name: str) -> optuna.Study:
    optuna.logging.set_verbosity(logging.WARNING)
    name = cfg.space.name or "tune"
    if cfg.resume:
        if not (cfg.folder / STUDY_DB).is_file():
            raise UsageError(f"{cfg.folder} holds no {STUDY_DB}", hint="start it without --resume")
        study = optuna.load_study(study_name=name, storage=_storage(cfg.folder), sampler=sampler)
        _recover(study, cfg.folder)
        return study
    study = optuna.create_study(
        study_name=name, storage=_storage(cfg.folder), direction="maximize", sampler=sampler
    )
    study.set_user_attr("sampler", sampler_name)
    if cfg.space.baseline:
        study.enqueue_trial(dict(cfg.space.baseline))
    return study


def _recover(study: optuna.Study, folder: Path) -> None:
    """Trials a killed harness left RUNNING: their server group stopped, the trial FAIL, its
    parameters queued again (once: not if finished or already waiting)."""
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        where = t.user_attrs.get("folder")
        if where:
            candidate.stop_recorded(folder / str(where))
        study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    trials = study.get_trials(deepcopy=False)
    held = [t.params for t in trials if t.state in (TrialState.COMPLETE, TrialState.WAITING)]
    for t in trials:
        if t.state == TrialState.FAIL and t.params and t.params not in held:
            study.enqueue_trial(dict(t.params))
            held.append(t.params)


def _incumbent(study: optuna.Study) -> float | None:
    scores = [
        float(t.user_attrs["score"])
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if t.user_attrs.get("status") == "ok" and t.user_attrs.get("score") is not None
    ]
    return max(scores) if scores else None


def _record(t: FrozenTrial) -> TrialRecord:
    a = t.user_attrs
    status = str(a.get("status", "interrupted" if t.state == TrialState.FAIL else "running"))
    return TrialRecord(
        number=t.number,
        params=dict(t.params),
        note=str(a.get("note", "")),
        status=status,
        why=str(a.get("why", "")),
        score=a.get("score"),
        feasible=bool(a.get("feasible", False)),
        cold_start_s=a.get("cold_start_s"),
        minutes=a.get("minutes"),
        folder=a.get("folder"),
        launch=str(a.get("launch", "")),
        log_tail=str(a.get("log_tail", "")),
    )


def _shown(t: FrozenTrial) -> bool:
    """Trials measured or interrupted (not a pruned duplicate, not one still waiting)."""
    return t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.RUNNING)


def _ranked(records: list[TrialRecord]) -> list[TrialRecord]:
    scored = [r for r in records if r.feasible and r.score is not None]
    return sorted(scored, key=lambda r: (-(r.score or 0.0), r.number))


def build_report(
    study: optuna.Study, cfg: TuneConfig, sampler: str, stopped_by: str, score_name: str
) -> TuneReport:
    records = [_record(t) for t in study.get_trials(deepcopy=False) if _shown(t)]
    best_ok = [r for r in _ranked(records) if r.status == "ok"]
    best = best_ok[0] if best_ok else None
    report = TuneReport(
        name=cfg.space.name or "tune",
        sampler=sampler,
        score_name=score_name,
        stopped_by=stopped_by,
        trials=records,
        best=best,
        best_command=best.launch if best else None,
        complete=stopped_by != "interrupted",
    )
    report.provenance.profile = cfg.profile.name
    report.provenance.experiment = cfg.space.name
    return report


def _done(study: optuna.Study) -> int:
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def _waiting(study: optuna.Study) -> bool:
    return bool(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def _grid_covered(space: Space, study: optuna.Study) -> bool:
    """Every grid point measured (a COMPLETE trial): the grid is done."""
    grid = grid_space(space)
    seen = {
        tuple(t.params.get(k) for k in grid)
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    }
    return all(tuple(p) in seen for p in itertools.product(*grid.values()))


def _stop_reason(cfg: TuneConfig, study: optuna.Study, sampler: BaseSampler, t0: float) -> str:
    budget = cfg.space.budget
    if budget.trials is not None and _done(study) >= budget.trials:
        return "trials budget"
    if budget.minutes is not None and (time.monotonic() - t0) / 60 >= budget.minutes:
        return "minutes budget"
    if isinstance(sampler, GridSampler) and _grid_covered(cfg.space, study) and not _waiting(study):
        return "grid exhausted"
    return ""


def prepare_folder(cfg: TuneConfig) -> None:
    if cfg.resume:
        return
    try:
        cfg.folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ConfigError(
            f"cannot create tune folder {cfg.folder}: {err.strerror or type(err).__name__}",
            hint="pass --out to a writable folder",
        ) from None
    if (cfg.folder / STUDY_DB).exists():
        raise UsageError(
            f"{cfg.folder} holds a tune already",
            hint=f"continue it with harness tune --resume {cfg.folder}",
        )
    (cfg.folder / SPACE_COPY).write_text(cfg.space_text, encoding="utf-8")


def run_tune(cfg: TuneConfig, hooks: TuneHooks | None = None) -> TuneReport:
    """The search to its budget; ``tune.json`` saved after every trial and at the end."""
    hooks = hooks or TuneHooks()
    sampler_name, sampler = choose_sampler(cfg.space, cfg.sampler, cfg.seed)
    preflight(cfg.space, cfg.profile, cfg.folder)
    prepare_folder(cfg)
    study = open_study(cfg, sampler, sampler_name)
    if cfg.resume:
        sampler_name = str(study.user_attrs.get("sampler", sampler_name))
    score_name = "mean speedup" if cfg.profile.latency is not None else "score"
    dists = distributions(cfg.space)
    t0 = time.monotonic()
    stopped_by = ""
    try:
        while not (stopped_by := _stop_reason(cfg, study, sampler, t0)):
            _one(cfg, study, dists, hooks)
            build_report(study, cfg, sampler_name, "", score_name).save(cfg.folder)
    except KeyboardInterrupt:
        stopped_by = "interrupted"
    report = build_report(study, cfg, sampler_name, stopped_by, score_name)
    report.save(cfg.folder)
    return confirm_winner(cfg.space, cfg.profile, cfg.folder, report, hooks, enabled=cfg.confirm)


def _one(
    cfg: TuneConfig, study: optuna.Study, dists: dict[str, BaseDistribution], hooks: TuneHooks
) -> None:
    box: list[tuple[int, float]] = []

    def objective(trial: optuna.Trial) -> float:
        return _measure_trial(cfg, study, dists, trial, hooks, box)

    # optimize (one trial at a time) rather than ask/tell: a sampler may stop the study from
    # inside it (GridSampler, once the grid is done); Ctrl-C leaves the trial FAIL
    study.optimize(objective, n_trials=1, catch=())
    for number, _ in box:
        _announce(study, number, hooks)


def _measure_trial(
    cfg: TuneConfig,
    study: optuna.Study,
    dists: dict[str, BaseDistribution],
    trial: optuna.Trial,
    hooks: TuneHooks,
    box: list[tuple[int, float]],
) -> float:
    values: dict[str, Choice] = {k: suggest(trial, k, d) for k, d in dists.items()}
    measured = [t.params for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    if values in measured:  # the grid's own copy of the enqueued baseline: never twice
        raise optuna.TrialPruned("measured already")
    folder = trial_folder(cfg.folder / TRIALS_DIR, trial.number)
    rel = folder.relative_to(cfg.folder)
    trial.set_user_attr("folder", str(rel))
    note = diff_text(values, cfg.space.baseline)
    trial.set_user_attr("note", note)
    t0 = time.monotonic()
    res = run_trial(
        cfg.space,
        cfg.profile,
        values,
        folder,
        _incumbent(study),
        name=f"{cfg.space.name}-t{trial.number:03d}",
    )
    feasible = res.status in FEASIBLE
    attrs: dict[str, Any] = {
        "status": res.status,
        "why": res.why,
        "score": res.score,
        "feasible": feasible,
        "cold_start_s": res.cold_start_s,
        "minutes": round((time.monotonic() - t0) / 60, 3),
        "launch": res.launch,
        "log_tail": res.log_tail,
        "constraint": 0.0 if feasible else 1.0,
    }
    for k, v in attrs.items():
        trial.set_user_attr(k, v)
    value = float(res.score or 0.0) if feasible else 0.0
    box.append((trial.number, value))
    return value


def _announce(study: optuna.Study, number: int, hooks: TuneHooks) -> None:
    records = [_record(t) for t in study.get_trials(deepcopy=False)]
    ranked = _ranked(records)
    mine = next(r for r in records if r.number == number)
    rank = next((i + 1 for i, r in enumerate(ranked) if r.number == number), None)
    hooks.trial_done(mine, rank, len(records))
