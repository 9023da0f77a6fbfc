"""The study opened: created (the baseline enqueued, a conditional grid's points after it),
joined (``--storage``: another worker created it), or loaded on ``--resume`` with the trials a
killed harness left RUNNING recovered: their server group stopped if still alive, the trial
FAIL, its parameters queued again; finished trials are never measured again. A resumed worker
of a shared study recovers only its own trials."""

from __future__ import annotations

import logging
from pathlib import Path

import optuna
from optuna.samplers import BaseSampler
from optuna.storages import BaseStorage, RDBStorage
from optuna.trial import FrozenTrial, TrialState

from harness.errors import UsageError
from harness.tune import launch
from harness.tune.record import trial_store
from harness.tune.study import claim, storage
from harness.tune.study.config import TuneConfig
from harness.tune.study.samplers import PointGrid
from harness.tune.study.tune_folder import STUDY_DB


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
