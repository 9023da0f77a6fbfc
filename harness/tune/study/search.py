"""The search: an Optuna study in ``DIR/study.db`` asks for candidates, each is measured by
:func:`harness.tune.trial.run_trial` (``run_tune``'s ``measure``: the bench plugs a simulated
trial in there), and the study is told its score (a ``lost-race`` trial: its bound).

Samplers: ``grid`` (every combination of an all-choice space; a grid point equal to a
measured trial, the enqueued baseline, is pruned, not measured again), ``tpe`` (settings
and the value a trial is told: harness/tune/study/sampling.py), ``random``; ``auto`` picks grid
when the whole grid fits the trial budget, else tpe. The baseline is measured first
(enqueued).

Conditions between parameters (harness/tune/space/conditions.py): only active parameters are
suggested; a draw an ``[[exclude]]`` matches is pruned; a conditional grid is
:class:`PointGrid` (its valid points enqueued), since GridSampler's grid is the full product.

``--resume``: a trial a killed harness left RUNNING is marked FAIL, the server group it
recorded is stopped if still alive, and its parameters are queued again; finished
trials are never measured again.

``--storage URL``: several workers share one study (harness/tune/study/storage.py); a point is
measured by the lowest-numbered trial that holds it (harness/tune/study/claim.py), and a
resumed worker recovers only its own trials.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import optuna
from optuna.distributions import (
    BaseDistribution,
)
from optuna.samplers import BaseSampler, GridSampler
from optuna.storages import BaseStorage, RDBStorage
from optuna.trial import FrozenTrial, TrialState

from harness.errors import HarnessError, UsageError
from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.profiles import Profile
from harness.tune import launch
from harness.tune.confirm import confirm_winner
from harness.tune.record import trial_store
from harness.tune.record.outcome import TrialResult
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.score import score_name
from harness.tune.record.status import Status
from harness.tune.space import Choice, Space, conditions
from harness.tune.space.template import diff_text
from harness.tune.study import claim, storage
from harness.tune.study.samplers import (
    PointGrid,
    SamplerName,
    choose_sampler,
    distributions,
    grid_space,
    points_covered,
    suggest,
)
from harness.tune.study.tune_folder import SPACE_COPY as SPACE_COPY  # re-exported
from harness.tune.study.tune_folder import STUDY_DB, prepare_folder, unmake
from harness.tune.study.tune_folder import resume_space as resume_space  # re-exported
from harness.tune.trial import preflight, run_trial, slo_step, trial_folder


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


def open_study(
    cfg: TuneConfig,
    sampler: BaseSampler,
    sampler_name: str,
    store: RDBStorage | None = None,
) -> optuna.Study:
    """The tune's study: created (baseline enqueued) or, under ``--storage``, joined when
    another worker created it first; on ``--resume``, loaded and this worker's trials
    recovered. ``store``: the storage, when the caller opened it already."""
    # ERROR: Optuna logs a trial stopped by Ctrl-C / SIGTERM as a WARNING with a traceback
    optuna.logging.set_verbosity(logging.ERROR)
    name = cfg.space.name or "tune"
    shared = cfg.storage is not None
    if cfg.resume and not shared and not (cfg.folder / STUDY_DB).is_file():
        raise UsageError(
            f"{cfg.folder} holds no {STUDY_DB}", hint="start it again without --resume"
        )
    if store is None:
        store = storage.open_storage(cfg.storage or storage.local_url(cfg.folder), shared=shared)
    if cfg.resume:
        try:
            study = optuna.load_study(study_name=name, storage=store, sampler=sampler)
        except KeyError:
            raise UsageError(
                f"no study {name!r} in {storage.shown(cfg.storage or '')}",
                hint="pass the --storage this tune was started with",
            ) from None
        _recover(store, study, cfg.folder, only_mine=shared)
        return study
    try:
        study = optuna.create_study(
            study_name=name, storage=store, direction="maximize", sampler=sampler
        )
    except optuna.exceptions.DuplicatedStudyError:
        # another worker created it: join (only the creator enqueues the baseline)
        study = optuna.load_study(study_name=name, storage=store, sampler=sampler)
        _same_space(study, cfg)
        return study
    study.set_user_attr("sampler", sampler_name)
    study.set_user_attr("space", cfg.space.model_dump_json())
    points = sampler.points if isinstance(sampler, PointGrid) else []
    if cfg.space.baseline and points[:1] != [cfg.space.baseline]:
        study.enqueue_trial(dict(cfg.space.baseline))  # first; partial: the rest drawn
    for point in points:  # a conditional grid: every valid point, the baseline's first
        study.enqueue_trial(dict(point))
    return study


def _same_space(study: optuna.Study, cfg: TuneConfig) -> None:
    kept = study.user_attrs.get("space")
    if kept is not None and kept != cfg.space.model_dump_json():
        raise UsageError(
            f"study {study.study_name!r} in {storage.shown(cfg.storage or '')} was started "
            "with another SPACE.toml",
            hint="join it with the same file, or name this tune otherwise (name = …)",
        )


def _mine(t: FrozenTrial, folder: Path) -> bool:
    return t.user_attrs.get(trial_store.ROOT) == str(folder.resolve())


def _recover(
    store: BaseStorage, study: optuna.Study, folder: Path, *, only_mine: bool = False
) -> None:
    """Trials a killed harness left RUNNING: their server group stopped, the trial FAIL, its
    parameters queued again (once: not if finished, waiting or measured by another worker).
    ``only_mine``: a shared study; other workers' trials are theirs (or the heartbeat's).

    The state is set through the storage harness opened (its public methods), not with
    ``study.tell``: telling runs the sampler's ``after_trial``, and GridSampler's, on the
    grid's last point, calls ``study.stop()``, which raises outside ``optimize``."""
    study_id = store.get_study_id_from_name(study.study_name)
    for t in store.get_all_trials(study_id, deepcopy=False, states=(TrialState.RUNNING,)):
        if only_mine and not _mine(t, folder):
            continue
        where = trial_store.read(t).folder
        if where:
            launch.stop_recorded(folder / where)
        trial_id = store.get_trial_id_from_study_id_trial_number(study_id, t.number)
        store.set_trial_state_values(trial_id, TrialState.FAIL)
    trials = study.get_trials(deepcopy=False)
    held = [dict(claim.values_of(t)) for t in trials if t.state in claim.HOLDING]
    for t in trials:
        if only_mine and not _mine(t, folder):
            continue
        if t.state == TrialState.FAIL and t.params and t.params not in held:
            study.enqueue_trial(dict(t.params))
            held.append(t.params)


def _incumbent(study: optuna.Study) -> float | None:
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    scores = [r.score for r in map(trial_store.read, done) if r.status == Status.OK]
    ok = [s for s in scores if s is not None]
    return max(ok) if ok else None


def _shown(t: FrozenTrial) -> bool:
    """Trials measured or interrupted (not a pruned duplicate, not one still waiting)."""
    return t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.RUNNING)


def _ranked(records: list[TrialRecord]) -> list[TrialRecord]:
    scored = [r for r in records if r.feasible and r.score is not None]
    return sorted(scored, key=lambda r: (-(r.score or 0.0), r.number))


def build_report(
    study: optuna.Study, cfg: TuneConfig, sampler: str, stopped_by: str, score_name: str
) -> TuneReport:
    records = [
        trial_store.read(t, cfg.folder) for t in study.get_trials(deepcopy=False) if _shown(t)
    ]
    best_ok = [r for r in _ranked(records) if r.status == Status.OK]
    best = best_ok[0] if best_ok else None
    report = TuneReport(
        name=cfg.space.name or "tune",
        sampler=sampler,
        score_name=score_name,
        stopped_by=stopped_by,
        trials=records,
        best=best,
        best_command=best.launch if best else None,
        # ended: a stop rule, a budget or the grid said so; a report written mid-study (or
        # left by a killed harness) is not complete, nor is an interrupted one
        complete=ended(stopped_by),
    )
    report.provenance.profile = cfg.profile.name
    report.provenance.experiment = cfg.space.name
    return report


def ended(stopped_by: str) -> bool:
    """Whether the study ended (its stop rule or budget), from what stopped it ('': not yet)."""
    return stopped_by not in ("", "interrupted")


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


def _stop_reason(cfg: TuneConfig, study: optuna.Study, sampler: BaseSampler, t0: float) -> str:
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


def run_tune(
    cfg: TuneConfig, hooks: TuneHooks | None = None, measure: MeasureTrial = run_trial
) -> TuneReport:
    """The search to its budget; ``tune.json`` saved after every trial and at the end.
    ``measure``: how a candidate is measured (the real trial; the bench's simulation)."""
    hooks = hooks or TuneHooks()
    sampler_name, sampler = choose_sampler(cfg.space, cfg.sampler, cfg.seed)
    preflight(cfg.space, cfg.profile, cfg.folder)
    slo_step.preflight(cfg.space, cfg.profile)
    # a shared storage is opened before the folder is made: a bad URL leaves nothing behind
    shared = cfg.storage if cfg.storage is not None and not cfg.resume else None
    store = storage.open_storage(shared, shared=True) if shared is not None else None
    made = [] if cfg.resume else prepare_folder(cfg.folder, cfg.space_text, cfg.storage)
    try:
        study = open_study(cfg, sampler, sampler_name, store)
    except HarnessError:  # e.g. another SPACE.toml's study: the start is refused whole
        unmake([*made, cfg.folder / STUDY_DB] if store is None else made)
        raise
    if cfg.resume:
        sampler_name = str(study.user_attrs.get("sampler", sampler_name))
    score = score_name(cfg.profile, cfg.space)
    dists = distributions(cfg.space)
    t0 = time.monotonic()
    stopped_by = ""
    # every latency report carries the client's self-test against a simulator (docs/timing.md,
    # "Calibration"): real trials share one, started once, not in every trial and leg
    real = measure is run_trial and cfg.profile.latency is not None

    def progress() -> None:
        """tune.json mid-study: not complete, the trial being measured listed as running."""
        build_report(study, cfg, sampler_name, "", score).save(cfg.folder)

    with _quick_simulator() if real else nullcontext():
        try:
            while not (stopped_by := _stop_reason(cfg, study, sampler, t0)):
                _one(cfg, study, dists, hooks, measure, progress)
                progress()
        except KeyboardInterrupt:
            stopped_by = "interrupted"
        report = build_report(study, cfg, sampler_name, stopped_by, score)
        report.save(cfg.folder)
        return confirm_winner(
            cfg.space, cfg.profile, cfg.folder, report, hooks, enabled=cfg.confirm
        )


def _quick_simulator() -> AbstractContextManager[object]:
    from harness.latency.selftest import quick_simulator  # lazily: it imports the client

    return quick_simulator()


def _one(
    cfg: TuneConfig,
    study: optuna.Study,
    dists: dict[str, BaseDistribution],
    hooks: TuneHooks,
    measure: MeasureTrial,
    progress: Callable[[], None],
) -> None:
    box: list[tuple[int, float]] = []

    def objective(trial: optuna.Trial) -> float:
        return _measure_trial(cfg, study, dists, trial, measure, box, hooks, progress)

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
    measure: MeasureTrial,
    box: list[tuple[int, float]],
    hooks: TuneHooks,
    progress: Callable[[], None],
) -> float:
    trial.set_user_attr(trial_store.ROOT, str(cfg.folder.resolve()))  # this worker's
    # only the active parameters are drawn (Optuna's conditional search space)
    values = conditions.active_values(
        list(dists), cfg.space.conditions(), lambda k: suggest(trial, k, dists[k])
    )
    rule = conditions.excluded_by(cfg.space.exclusions(), values)
    if rule is not None:  # drawn by TPE or random: never measured, told as infeasible
        trial.set_user_attr(trial_store.CONSTRAINT, 1.0)
        raise optuna.TrialPruned(f"excluded by exclude.{rule}")
    held = claim.holder(study, trial.number, values)
    if held is not None:  # e.g. the grid's own copy of the enqueued baseline: never twice
        if held.state == TrialState.RUNNING:
            time.sleep(1.0)  # another worker measures it: no busy loop of pruned trials
        raise optuna.TrialPruned(f"trial {held.number} holds these values")
    folder = trial_folder(cfg.folder / TRIALS_DIR, trial.number)
    rel = folder.relative_to(cfg.folder)
    note = diff_text(values, cfg.space.baseline)
    record = TrialRecord(
        number=trial.number, params=dict(values), note=note, status=Status.RUNNING, folder=str(rel)
    )
    trial_store.write(trial, record)  # a --resume finds its folder (its server) from here
    progress()  # tune.json lists it as running: a killed harness leaves it there
    t0 = time.monotonic()
    hooks.say(f"trial {trial.number:>3} starting — {note or 'baseline'}")
    res = measure(
        cfg.space,
        cfg.profile,
        values,
        folder,
        _incumbent(study),
        name=f"{cfg.space.name}-t{trial.number:03d}",
        reference=slo_step.baseline_folder(study, cfg.space, values, folder, cfg.folder),
        hooks=hooks.steps,
    )
    feasible = res.status.feasible
    done = record.model_copy(
        update={
            "status": res.status,
            "why": res.why,
            "score": res.score,
            "feasible": feasible,
            "cold_start_s": res.cold_start_s,
            "minutes": round((time.monotonic() - t0) / 60, 3),
            "launch": res.launch,
            "log_tail": res.log_tail,
            "bound": res.bound,  # lost-race: the optimistic score it stopped at
            "steps": res.results,  # each step it ran, with its result
        }
    )
    trial_store.write(trial, done)
    trial.set_user_attr(trial_store.CONSTRAINT, 0.0 if feasible else 1.0)
    value = res.objective
    box.append((trial.number, value))
    return value


def _announce(study: optuna.Study, number: int, hooks: TuneHooks) -> None:
    records = [trial_store.read(t) for t in study.get_trials(deepcopy=False)]
    ranked = _ranked(records)
    mine = next(r for r in records if r.number == number)
    rank = next((i + 1 for i, r in enumerate(ranked) if r.number == number), None)
    hooks.trial_done(mine, rank, len(records))
