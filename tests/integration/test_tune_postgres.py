"""``harness tune`` workers on a real PostgreSQL (tests/fixtures/postgres.py: a throw-away
cluster on its own port): the races of tests/unit/test_tune_workers.py on the server's row
locks, then three workers on one study through ``postgresql://…``, one of them killed with
SIGKILL mid-trial: every grid point measured once, in distinct folders, the dead worker's
trial found by the heartbeat and measured again by another worker, and the study ends as
the SQLite one does (tests/integration/test_tune_workers.py's ``check_study``)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import optuna
import pytest
from optuna.storages import RetryHeartbeatStaleTrialCallback
from optuna.trial import TrialState

from harness.tune.launch.candidate import group_alive
from harness.tune.record.trial_store import read
from harness.tune.study.storage import GRACE_ENV, open_storage
from tests.fixtures.postgres import PgCluster
from tests.integration.test_tune_simulator import GOOD, TRAP, _space
from tests.integration.test_tune_workers import check_study, start_worker
from tests.unit.test_tune_workers import WORKERS, _claim, _pop, _race, _study

pytestmark = pytest.mark.timeout(600)

GRACE_S = 6  # the workers' heartbeat grace (HARNESS_TUNE_GRACE_S): a beat every second


def _new_study(url: str) -> optuna.Study:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    optuna.create_study(study_name="s", storage=open_storage(url, shared=False))
    return _study(url)


def test_a_queued_trial_is_popped_by_one_worker(postgres: PgCluster) -> None:
    url = postgres.database("popped")
    study = _new_study(url)
    for i in range(3):
        study.enqueue_trial({"x": i})
    numbers = _race(_pop, url)
    assert len(set(numbers)) == WORKERS  # no trial asked for twice (the row's FOR UPDATE)
    states = [t.state for t in study.get_trials(deepcopy=False)]
    assert states.count(TrialState.RUNNING) == WORKERS and TrialState.WAITING not in states


def test_one_point_drawn_by_every_worker_is_measured_once(postgres: PgCluster) -> None:
    url = postgres.database("claimed")
    _new_study(url)
    got = _race(_claim, url)
    assert sorted(n for n, _ in got) == list(range(WORKERS))  # numbers unique and dense
    owners = [number for number, held in got if held is None]
    assert owners == [min(number for number, _ in got)]  # the lowest-numbered trial, alone
    assert all(held < number for number, held in got if held is not None)


def _measuring(out: Path, timeout_s: float) -> Path:
    """The first candidate record under a worker's folder: it measures a trial now."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = sorted(out.glob("trials/*/candidate.json"))
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no trial started under {out} in {timeout_s:.0f} s")


@pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")  # retried_trial_number
def test_three_workers_one_killed_share_one_study(tmp_path: Path, postgres: PgCluster) -> None:
    url = postgres.database("tune")
    space = _space(tmp_path)
    env = {GRACE_ENV: str(GRACE_S)}
    dead, w2, w3 = tmp_path / "w1", tmp_path / "w2", tmp_path / "w3"
    killed = start_worker(space, dead, url, env=env)
    second = start_worker(space, w2, url, env=env)
    record = _measuring(dead, timeout_s=240)
    time.sleep(1.0)  # its trial is under way
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    died = time.monotonic()
    pgid = int(json.loads(record.read_text())["pgid"])
    while group_alive(pgid) and time.monotonic() < died + 10:  # PR_SET_PDEATHSIG
        time.sleep(0.1)
    assert not group_alive(pgid)
    _, err = second.communicate(timeout=450)
    assert second.returncode == 0, err
    # a worker that joins after the grace finds the dead trial if the second did not
    time.sleep(max(0.0, died + GRACE_S + 1 - time.monotonic()))
    third = start_worker(space, w3, url, env=env)
    _, err = third.communicate(timeout=300)
    assert third.returncode == 0, err

    study = optuna.load_study(study_name="simtrap", storage=url)
    lost = study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
    assert len(lost) == 1 and lost[0].user_attrs["root"] == str(dead.resolve())
    assert read(lost[0]).folder == record.parent.relative_to(dead).as_posix()
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    retried = RetryHeartbeatStaleTrialCallback.retried_trial_number
    again = [t for t in done if retried(t) is not None]
    assert [retried(t) for t in again] == [lost[0].number]
    assert again[0].params == lost[0].params
    assert again[0].user_attrs["root"] in (str(w2.resolve()), str(w3.resolve()))
    # the same study as two SQLite workers leave: each point once, best (1, GOOD)
    check_study(url, [w2, w3], last=[w3])
    assert {(t.params["itl_ms"], t.params["quant"]) for t in done} == {
        (4, GOOD),
        (4, TRAP),
        (1, GOOD),
        (1, TRAP),
    }
