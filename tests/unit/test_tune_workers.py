"""Several workers on one study (harness/tune/study/storage.py, harness/tune/study/claim.py): a queued
trial is popped by one worker only, a point is measured by the lowest-numbered trial that
holds it, and the storage URL a worker joined is kept for its --resume."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from harness.errors import ConfigError, UsageError
from harness.profiles import load_profile
from harness.tune.space import parse_space
from harness.tune.study import claim
from harness.tune.study.config import TuneConfig
from harness.tune.study.opening import open_study
from harness.tune.study.samplers import choose_sampler
from harness.tune.study.storage import (
    GRACE_ENV,
    grace_s,
    heartbeat_s,
    open_storage,
    record,
    resume_url,
    shown,
)
from harness.tune.study.tune_folder import prepare_folder

WORKERS = 6


def _study(url: str, *, shared: bool = False) -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    store = open_storage(url, shared=shared)
    return optuna.load_study(study_name="s", storage=store)


def _create(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    optuna.create_study(study_name="s", storage=open_storage(url, shared=False))
    return url


def _pop(
    url: str, barrier: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    study = _study(url)
    barrier.wait()
    trial = study.ask()
    out.put(trial.number)


def _claim(
    url: str, barrier: multiprocessing.synchronize.Barrier, out: multiprocessing.Queue
) -> None:  # type: ignore[type-arg]
    study = _study(url)
    barrier.wait()
    trial = study.ask()
    value = trial.suggest_int("x", 1, 1)  # every worker draws the same point
    held = claim.holder(study, trial.number, {"x": value})
    out.put((trial.number, None if held is None else held.number))


def _race(target: object, url: str) -> list:  # type: ignore[type-arg]
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(WORKERS)
    out: multiprocessing.Queue = ctx.Queue()  # type: ignore[type-arg]
    procs = [ctx.Process(target=target, args=(url, barrier, out)) for _ in range(WORKERS)]  # type: ignore[arg-type]
    for p in procs:
        p.start()
    got = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return got


def test_a_queued_trial_is_popped_by_one_worker(tmp_path: Path) -> None:
    url = _create(tmp_path)
    study = _study(url)
    for i in range(3):
        study.enqueue_trial({"x": i})
    numbers = _race(_pop, url)
    assert len(set(numbers)) == WORKERS  # no trial asked for twice (SQLite: BEGIN IMMEDIATE)
    states = [t.state for t in study.get_trials(deepcopy=False)]
    assert states.count(TrialState.RUNNING) == WORKERS and TrialState.WAITING not in states


def test_one_point_drawn_by_every_worker_is_measured_once(tmp_path: Path) -> None:
    url = _create(tmp_path)
    got = _race(_claim, url)
    owners = [number for number, held in got if held is None]
    assert owners == [min(number for number, _ in got)]  # the lowest-numbered trial, alone
    assert all(held < number for number, held in got if held is not None)  # yields down


def test_a_queued_baseline_holds_its_point_before_it_runs(tmp_path: Path) -> None:
    study = _study(_create(tmp_path))
    study.enqueue_trial({"x": 4})  # trial 0, WAITING: its fixed values are known already
    later = study.ask()  # pops trial 0 ...
    assert later.number == 0
    other = study.ask()  # ... so this one is new
    other.suggest_int("x", 1, 8)
    held = claim.holder(study, other.number, {"x": 4}, wait_s=0.5)
    assert held is not None and held.number == 0
    assert claim.holder(study, other.number, {"x": 5}, wait_s=0.5) is None


def test_a_lower_trial_without_values_yet_is_waited_for(tmp_path: Path) -> None:
    study = _study(_create(tmp_path))
    first = study.ask()  # RUNNING, no values written yet
    second = study.ask()
    second.suggest_int("x", 5, 5)

    def write_late() -> None:
        time.sleep(0.3)
        first.suggest_int("x", 5, 5)

    t = threading.Thread(target=write_late)
    t.start()
    held = claim.holder(study, second.number, {"x": 5}, wait_s=10)
    t.join()
    assert held is not None and held.number == first.number


def test_a_lower_trial_that_never_writes_is_not_waited_for_forever(tmp_path: Path) -> None:
    study = _study(_create(tmp_path))
    study.ask()  # a worker that died before drawing its values
    mine = study.ask()
    t0 = time.monotonic()
    assert claim.holder(study, mine.number, {"x": 1}, wait_s=0.3) is None
    assert time.monotonic() - t0 < 5


def test_failed_and_pruned_trials_hold_nothing(tmp_path: Path) -> None:
    study = _study(_create(tmp_path))
    for state in (TrialState.FAIL, TrialState.PRUNED):
        t = study.ask()
        t.suggest_int("x", 3, 3)
        study.tell(t, state=state)
    mine = study.ask()
    assert claim.holder(study, mine.number, {"x": 3}, wait_s=0.3) is None


def test_the_storage_url_is_kept_without_its_password(tmp_path: Path) -> None:
    assert shown("postgresql://u:secret@db/tune") == "postgresql://u:***@db/tune"
    record(tmp_path, "postgresql://u:secret@db/tune")
    assert "secret" not in (tmp_path / "storage.txt").read_text()
    with pytest.raises(UsageError, match="password is not kept"):
        resume_url(tmp_path, None)
    assert resume_url(tmp_path, "postgresql://u:secret@db/tune") == "postgresql://u:secret@db/tune"
    with pytest.raises(UsageError, match="joined the study in"):
        resume_url(tmp_path, "postgresql://u:secret@db/other")


def test_a_sqlite_url_is_kept_as_given_and_a_local_study_takes_no_storage(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    url = f"sqlite:///{tmp_path / 'x.db'}"
    record(shared, url)
    assert resume_url(shared, None) == url
    own = tmp_path / "own"
    own.mkdir()
    assert resume_url(own, None) is None
    with pytest.raises(UsageError, match=r"own study\.db"):
        resume_url(own, url)


def test_a_malformed_storage_url_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a database URL"):
        shown("not a url")


SPACE = """
name = "w"
[serve]
command = "srv --port {port} --a {a}"
[params]
a = [1, 2, 3]
[baseline]
a = 1
"""


def _cfg(folder: Path, url: str | None, text: str = SPACE, *, resume: bool = False) -> TuneConfig:
    return TuneConfig(
        space=parse_space(text),
        space_text=text,
        profile=load_profile("efficient-qwen"),
        folder=folder,
        storage=url,
        resume=resume,
    )


def _open(cfg: TuneConfig) -> optuna.Study:
    name, sampler = choose_sampler(cfg.space, "auto", 0)
    if not cfg.resume:  # as run_tune: a resumed worker makes no folder
        prepare_folder(cfg.folder, cfg.space_text, cfg.storage)
    return open_study(cfg, sampler, name)


def test_the_second_worker_joins_without_a_second_baseline(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    first = _open(_cfg(tmp_path / "w1", url))
    second = _open(_cfg(tmp_path / "w2", url))
    assert first.study_name == second.study_name == "w"
    assert len(second.get_trials(deepcopy=False, states=(TrialState.WAITING,))) == 1
    assert (tmp_path / "w2" / "storage.txt").read_text().strip() == url


def test_a_worker_with_another_space_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    _open(_cfg(tmp_path / "w1", url))
    with pytest.raises(UsageError, match=r"another SPACE\.toml"):
        _open(_cfg(tmp_path / "w2", url, SPACE.replace("[1, 2, 3]", "[1, 2]")))


def test_two_workers_never_share_a_folder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    _open(_cfg(tmp_path / "w", url))
    with pytest.raises(UsageError, match="another tune's folder"):
        _open(_cfg(tmp_path / "w", url))


@pytest.mark.filterwarnings("ignore:Heartbeat of storage is supposed to be used")  # ask() here
def test_a_resumed_worker_recovers_only_its_own_trials(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    mine, theirs = tmp_path / "w1", tmp_path / "w2"
    study = _open(_cfg(mine, url))
    _open(_cfg(theirs, url))
    study.enqueue_trial({"a": 3})
    for root in (mine, theirs):  # each worker left a trial RUNNING: the baseline, then a = 3
        t = study.ask()
        t.set_user_attr("root", str(root.resolve()))
        t.suggest_categorical("a", [1, 2, 3])
    resumed = _open(_cfg(mine, url, resume=True))
    trials = resumed.get_trials(deepcopy=False)
    assert [t.state for t in trials[:2]] == [TrialState.FAIL, TrialState.RUNNING]
    queued = [t for t in trials if t.state == TrialState.WAITING]
    assert [claim.values_of(t) for t in queued] == [{"a": 1}]  # its own point, once more


def test_a_new_incumbent_outranked_by_another_workers_trial_says_so() -> None:
    """Two workers each beat the incumbent they knew of: the one ranked #2 no longer says
    "new incumbent" beside its rank."""
    from harness.tune.record.report import TrialRecord
    from harness.tune.show.render import trial_line

    t = TrialRecord(number=3, params={}, note="a 1→2", status="ok", why="new incumbent", score=5.0)
    assert trial_line(t, 1, 4).endswith("a 1→2 — new incumbent")
    second = trial_line(t, 2, 4)
    assert "new incumbent" not in second
    assert second.endswith("another worker's trial ranks higher")


def test_the_heartbeat_grace_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(GRACE_ENV, raising=False)
    assert grace_s() == 90 and heartbeat_s(grace_s()) == 20  # the documented defaults
    monkeypatch.setenv(GRACE_ENV, "6")
    assert grace_s() == 6 and heartbeat_s(6) == 1  # four beats within the grace, at least
    for bad in ("1", "soon", "-5"):
        monkeypatch.setenv(GRACE_ENV, bad)
        with pytest.raises(ConfigError, match=f"{GRACE_ENV}='{bad}'"):
            grace_s()


def test_a_missing_database_driver_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="its database driver MySQLdb is not installed"):
        open_storage("mysql://u@127.0.0.1:9/db", shared=False)
