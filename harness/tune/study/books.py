"""A trial's books: its values drawn (only the active ones; an excluded or held point pruned),
its record written before it is measured (a ``--resume`` finds its folder there) and again
with its result, the value the study is told; then its place among the others announced."""

from __future__ import annotations

import time
from collections.abc import Callable

import optuna
from optuna.distributions import BaseDistribution
from optuna.trial import TrialState

from harness.tune.record import trial_store
from harness.tune.record.report import TrialRecord
from harness.tune.record.status import Status
from harness.tune.space import conditions
from harness.tune.space.template import diff_text
from harness.tune.study import claim
from harness.tune.study.config import TRIALS_DIR, MeasureTrial, TuneConfig, TuneHooks
from harness.tune.study.report import ranked
from harness.tune.study.samplers import suggest
from harness.tune.trial import slo_step, trial_folder


def incumbent(study: optuna.Study) -> float | None:
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    scores = [r.score for r in map(trial_store.read, done) if r.status == Status.OK]
    ok = [s for s in scores if s is not None]
    return max(ok) if ok else None


def measure_trial(
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
        incumbent(study),
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
            "score_caveat": res.score_caveat if res.score is not None else "",
            "steps": res.results,  # each step it ran, with its result
        }
    )
    trial_store.write(trial, done)
    trial.set_user_attr(trial_store.CONSTRAINT, 0.0 if feasible else 1.0)
    value = res.objective
    box.append((trial.number, value))
    return value


def announce(study: optuna.Study, number: int, hooks: TuneHooks) -> None:
    records = [trial_store.read(t) for t in study.get_trials(deepcopy=False)]
    order = ranked(records)
    mine = next(r for r in records if r.number == number)
    rank = next((i + 1 for i, r in enumerate(order) if r.number == number), None)
    hooks.trial_done(mine, rank, len(records))
