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

import time
from contextlib import AbstractContextManager, nullcontext

from harness.errors import HarnessError
from harness.tune.confirm import confirm_winner
from harness.tune.record.report import TuneReport
from harness.tune.record.score import score_name
from harness.tune.study import storage
from harness.tune.study.config import MeasureTrial, TuneConfig, TuneHooks
from harness.tune.study.loop import one
from harness.tune.study.opening import open_study
from harness.tune.study.report import build_report
from harness.tune.study.samplers import choose_sampler, distributions
from harness.tune.study.stop import stop_reason
from harness.tune.study.tune_folder import STUDY_DB, prepare_folder, unmake
from harness.tune.trial import run_trial
from harness.tune.trial.refuse import preflight


def run_tune(
    cfg: TuneConfig, hooks: TuneHooks | None = None, measure: MeasureTrial = run_trial
) -> TuneReport:
    """The search to its budget; ``tune.json`` saved after every trial and at the end.
    ``measure``: how a candidate is measured (the real trial; the bench's simulation)."""
    hooks = hooks or TuneHooks()
    sampler_name, sampler = choose_sampler(cfg.space, cfg.sampler, cfg.seed)
    preflight(cfg.space, cfg.profile, cfg.folder)  # the settings, the image, the SLOs
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
            while not (stopped_by := stop_reason(cfg, study, sampler, t0)):
                one(cfg, study, dists, hooks, measure, progress)
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
