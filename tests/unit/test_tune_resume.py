"""``--resume`` through Optuna's public surface (harness/tune/study/opening.py ``_recover``): a
harness killed while it measured the grid's last point resumes and finishes, and a study
written before a trial's record was one attribute (harness/tune/record/trial_store.py) still
resumes, its trials read back as they were."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import TrialState

from harness.profiles import load_profile
from harness.tune.record.outcome import TrialResult
from harness.tune.record.report import TuneReport
from harness.tune.record.status import Status
from harness.tune.record.trial_store import RECORD, read
from harness.tune.run import run_tune
from harness.tune.space import Choice, conditions, parse_space
from harness.tune.study.config import TuneConfig
from harness.tune.study.samplers import choose_sampler, distributions, suggest
from harness.tune.study.storage import local_url, open_storage
from harness.tune.study.tune_folder import prepare_folder
from tests.unit.test_tune_conditions import PLAIN, _fake


class Killed(BaseException):
    """What ``kill -9`` leaves: no handler runs, Optuna's included (its trial stays RUNNING)."""


def _cfg(tmp_path: Path, *, resume: bool = False) -> TuneConfig:
    return TuneConfig(
        space=parse_space(PLAIN),
        space_text=PLAIN,
        profile=load_profile("efficient-qwen"),
        folder=tmp_path / "tune",
        sampler="grid",
        resume=resume,
        confirm=False,
    )


def _keys(seen: list[dict[str, Choice]]) -> list[tuple[Any, ...]]:
    return sorted(conditions.point_key(p) for p in seen)


def _all_points() -> list[tuple[Any, ...]]:
    return sorted(conditions.point_key(p) for p in parse_space(PLAIN).grid_points())


def test_a_harness_killed_on_the_last_grid_point_resumes_and_finishes(tmp_path: Path) -> None:
    seen: list[dict[str, Choice]] = []
    inner = _fake(seen)

    def killed_on_the_last(*args: Any, **kw: Any) -> TrialResult:
        if len(seen) == 3:  # 4 points: the baseline and two more measured
            raise Killed
        return inner(*args, **kw)  # type: ignore[operator,no-any-return]

    with pytest.raises(Killed):
        run_tune(_cfg(tmp_path), measure=killed_on_the_last)  # type: ignore[arg-type]
    study = optuna.load_study(study_name="tune", storage=local_url(tmp_path / "tune"))
    (left,) = study.get_trials(states=(TrialState.RUNNING,))
    assert read(left).status == Status.RUNNING and read(left).folder

    # the grid's last point is the one left RUNNING: study.tell would stop the study here
    report = run_tune(_cfg(tmp_path, resume=True), measure=inner)  # type: ignore[arg-type]
    assert report.stopped_by == "grid exhausted"
    assert _keys(seen) == _all_points() and len(seen) == 4  # the killed point measured once
    statuses = [t.status for t in report.trials]
    assert statuses.count(Status.INTERRUPTED) == 1 and statuses.count(Status.OK) == 4
    assert report.best is not None and report.best.score == 3.0  # 8 seqs, prefix caching on


def test_a_killed_harness_leaves_a_tune_json_that_is_not_complete(tmp_path: Path) -> None:
    """Each tune.json written mid-study says the study has not ended, and lists the trial
    being measured as running: what a kill -9 leaves behind is never read as finished."""
    seen: list[dict[str, Choice]] = []
    inner = _fake(seen)
    folder = tmp_path / "tune"
    midway: list[TuneReport] = []

    def killed_on_the_third(*args: Any, **kw: Any) -> TrialResult:
        midway.append(TuneReport.load(folder))  # written as this trial started
        if len(seen) == 2:
            raise Killed
        return inner(*args, **kw)  # type: ignore[operator,no-any-return]

    with pytest.raises(Killed):
        run_tune(_cfg(tmp_path), measure=killed_on_the_third)  # type: ignore[arg-type]
    assert [r.complete for r in midway] == [False, False, False]
    assert [[t.status for t in r.trials] for r in midway] == [
        [Status.RUNNING],
        [Status.OK, Status.RUNNING],
        [Status.OK, Status.OK, Status.RUNNING],
    ]
    left = TuneReport.load(folder)  # what the kill left: the running trial in it
    assert not left.complete and left.stopped_by == ""
    assert [t.status for t in left.trials] == [Status.OK, Status.OK, Status.RUNNING]
    # ended by its rule: complete
    done = run_tune(_cfg(tmp_path, resume=True), measure=inner)  # type: ignore[arg-type]
    assert done.complete and TuneReport.load(folder).complete


OLD_KEYS = ("status", "why", "score", "feasible", "cold_start_s", "minutes", "launch", "log_tail")


def _old_study(tmp_path: Path) -> Path:
    """A tune folder whose study keeps each trial the way harness wrote it before the record
    was one attribute: a user attribute per field; its last grid point left RUNNING."""
    folder = tmp_path / "tune"
    prepare_folder(folder, PLAIN, None)
    space = parse_space(PLAIN)
    name, sampler = choose_sampler(space, "grid", 0)
    store = open_storage(local_url(folder), shared=False)
    study = optuna.create_study(
        study_name="tune", storage=store, direction="maximize", sampler=sampler
    )
    study.set_user_attr("sampler", name)
    study.set_user_attr("space", space.model_dump_json())
    dists = distributions(space)
    for i in range(4):
        trial = study.ask()
        values = {k: suggest(trial, k, d) for k, d in dists.items()}
        trial.set_user_attr("root", str(folder.resolve()))
        trial.set_user_attr("folder", f"trials/t{trial.number:03d}")
        trial.set_user_attr("note", f"old {i}")
        if i == 3:
            return folder  # killed while measuring it
        score = float(values["max_num_seqs"])
        attrs = dict(
            zip(OLD_KEYS, ("ok", f"why {i}", score, True, 1.5, 0.25, "srv", ""), strict=True)
        )
        for k, v in attrs.items():
            trial.set_user_attr(k, v)
        trial.set_user_attr("constraint", 0.0)
        study.tell(trial, score)
    raise AssertionError("unreachable")


def test_a_study_written_the_old_way_still_resumes(tmp_path: Path) -> None:
    folder = _old_study(tmp_path)
    seen: list[dict[str, Choice]] = []
    report = run_tune(_cfg(tmp_path, resume=True), measure=_fake(seen))  # type: ignore[arg-type]
    assert report.stopped_by == "grid exhausted" and len(seen) == 1  # only the killed point
    old = [t for t in report.trials if t.note.startswith("old")]
    assert [(t.note, t.status, t.why) for t in old] == [
        ("old 0", "ok", "why 0"),
        ("old 1", "ok", "why 1"),
        ("old 2", "ok", "why 2"),
        ("old 3", "interrupted", ""),
    ]
    assert all(t.folder == f"trials/t{t.number:03d}" for t in old)
    assert [t.score for t in old[:3]] == [float(t.params["max_num_seqs"]) for t in old[:3]]
    assert all(t.cold_start_s == 1.5 and t.minutes == 0.25 and t.feasible for t in old[:3])
    # the trial measured on resume keeps its record whole, in one attribute
    study = optuna.load_study(study_name="tune", storage=local_url(folder))
    new = study.get_trials(states=(TrialState.COMPLETE,))[-1]
    assert set(new.user_attrs) == {"root", RECORD, "constraint"}
    assert read(new).status == Status.OK and read(new).score is not None
