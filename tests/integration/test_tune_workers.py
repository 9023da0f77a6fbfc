"""Two ``harness tune`` workers on this machine, one shared study (``--storage
sqlite:///…``), each starting its own simulators: one study, every grid point measured
once (the baseline once), no two trials in one run folder, no candidate left running.
:func:`check_study` is what a finished shared study must show, whatever the storage
(tests/integration/test_tune_postgres.py holds PostgreSQL to it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from harness.tune.launch.candidate import group_alive
from harness.tune.record.trial_store import read
from tests.integration.test_tune_simulator import GOOD, TRAP, _space

pytestmark = pytest.mark.timeout(500)


def start_worker(
    space: Path, out: Path, url: str, *, env: Mapping[str, str] | None = None
) -> subprocess.Popen[str]:
    """``harness tune SPACE --out OUT --storage URL --quiet`` as a child process."""
    child_env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        **(env or {}),
    }
    argv = [sys.executable, "-m", "harness", "tune", str(space), "--out", str(out)]
    return subprocess.Popen(
        [*argv, "--storage", url, "--quiet"],
        env=child_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def check_study(url: str, outs: list[Path], *, last: list[Path] | None = None) -> None:
    """The finished study of the test space behind ``url``, shared by the workers whose
    folders are ``outs`` (those that ran to the end); ``last`` (default: all of them): the
    workers that stopped after the study's last trial was made, whose tune.json lists it."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.load_study(study_name="simtrap", storage=url)  # the space's name
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    points = [(t.params["itl_ms"], t.params["quant"]) for t in done]
    assert sorted(points) == sorted({(4, GOOD), (4, TRAP), (1, GOOD), (1, TRAP)})  # once each
    assert [read(t).note for t in done].count("baseline") == 1
    assert not study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING))
    folders = [Path(t.user_attrs["root"]) / str(read(t).folder) for t in done]
    assert len(set(folders)) == len(folders)
    assert all((f / "params.json").is_file() for f in folders)
    assert {f.parent.parent for f in folders} <= {o.resolve() for o in outs}
    for f in folders:
        assert not group_alive(int(json.loads((f / "candidate.json").read_text())["pgid"]))
    shown_states = (TrialState.COMPLETE, TrialState.FAIL)  # measured, or its worker died
    numbers = sorted(t.number for t in study.get_trials(deepcopy=False, states=shown_states))
    finished_last = []
    for out in outs if last is None else last:  # the whole study, its folders findable
        tune = json.loads((out / "tune.json").read_text())
        shown = tune["trials"]
        assert sorted(t["number"] for t in shown) == numbers
        assert all((out / t["folder"] / "params.json").is_file() for t in shown)
        assert (out / "storage.txt").read_text().strip() == url
        # a worker that stopped while the other measured its last trial shows it running
        if all(t["status"] != "running" for t in shown):
            finished_last.append(tune)
    assert finished_last
    for tune in finished_last:
        assert tune["best"]["params"] == {"itl_ms": 1, "quant": GOOD}


def test_two_workers_share_one_study_and_measure_each_point_once(tmp_path: Path) -> None:
    space = _space(tmp_path)
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    outs = [tmp_path / "w1", tmp_path / "w2"]
    procs = [start_worker(space, out, url) for out in outs]
    for p in procs:
        _, err = p.communicate(timeout=450)
        assert p.returncode == 0, err
    check_study(url, outs)
