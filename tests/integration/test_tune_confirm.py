"""harness tune's confirmation on simulators: a clearly faster winner is confirmed (after a
kill -9 during the confirmation and a --resume that measures no finished leg again and
leaves no server running); two identical candidates are a tie within noise, picked by the
simpler diff; --no-confirm measures nothing after the search.

The profile is efficient-qwen without its quality step and its audit (the confirmation
measures the speed step only, and lm-eval's set-up would triple each trial's cost), the
official latency mode only (a leg's score is the official one)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.selftest import QUICK
from harness.tune.launch.candidate import group_alive
from tests.fixtures.tune_profiles import speed_only
from tests.integration.test_tune_self_test import quick_simulators_of_this_process

pytestmark = pytest.mark.timeout(400)


def _space(tmp_path: Path, *, same: bool, rounds: int = 3) -> Path:
    """Two candidates: ``--itl-ms`` 4 (the baseline) or 1, or (``same``) two identical
    servers told apart by an environment variable only."""
    if same:
        params, base = 'tag = ["a", "b"]', 'tag = "a"'
        serve = '--itl-ms 5"\nenv = { TUNE_TAG = "{tag}" }'  # ~0.35 s a request
    else:
        params, base = "itl_ms = [4, 1]", "itl_ms = 4"
        serve = '--itl-ms {itl_ms}"'
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "confirmtest"
profile = "{speed_only(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --ttft-ms 20 {serve}
stop_grace_s = 3
[params]
{params}
[baseline]
{base}
[confirm]
rounds = {rounds}
[options]
runs = 3
warmup = 1
buckets = "short"
max_gen_toks = 64
latency_mode = "official"
"""
    )
    return path


def _legs(out: Path) -> dict[tuple[int, int], Path]:
    got: dict[tuple[int, int], Path] = {}
    for path in sorted(out.glob("confirm/*/leg.json")):
        leg = json.loads(path.read_text())
        key = (leg["round"], leg["trial"])
        assert key not in got, f"leg {key} measured twice"
        got[key] = path
    return got


def _no_server_left(out: Path) -> None:
    for record in out.glob("*/*/candidate.json"):
        assert not group_alive(int(json.loads(record.read_text())["pgid"])), record


def _harness(argv: list[str], stderr: int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """``harness`` as a child process, quiet."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *argv, "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
    )


def _running_leg(out: Path, proc: subprocess.Popen[str], seen: set[Path]) -> Path:
    """A leg whose server is started (its candidate.json written, no leg.json yet) once
    another leg has finished, not one of ``seen``."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if _legs(out):
            for p in out.glob("confirm/*/candidate.json"):
                if p.parent not in seen and not (p.parent / "leg.json").exists():
                    return p.parent
        time.sleep(0.1)
    raise AssertionError(f"no confirmation leg running (harness exit {proc.poll()})")


def _gone(leg: Path) -> None:
    pgid = int(json.loads((leg / "candidate.json").read_text())["pgid"])
    end = time.monotonic() + 10
    while group_alive(pgid) and time.monotonic() < end:  # PR_SET_PDEATHSIG
        time.sleep(0.1)
    assert not group_alive(pgid)


def test_a_clear_winner_is_confirmed_across_sigterm_kill_9_and_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGTERM during a leg: exit 143, the leg's server stopped, the confirmation saved as
    incomplete; a --resume killed with SIGKILL during its next leg; a last --resume
    finishes with every leg measured once and no server left."""
    out = tmp_path / "tune"
    proc = _harness(["tune", str(_space(tmp_path, same=False)), "--out", str(out)], subprocess.PIPE)
    termed = _running_leg(out, proc, set())
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert not group_alive(int(json.loads((termed / "candidate.json").read_text())["pgid"]))
    saved = json.loads((out / "tune.json").read_text())
    assert not saved["complete"] and not saved["confirm"]["complete"]
    assert saved["stopped_by"] == "grid exhausted"

    proc = _harness(["tune", "--resume", str(out)])
    running = _running_leg(out, proc, {termed})
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = {k: p.stat().st_mtime_ns for k, p in _legs(out).items()}
    assert before
    _gone(running)

    capsys.readouterr()
    assert main(["tune", "--resume", str(out)]) == 0
    console = capsys.readouterr().out
    tune = json.loads((out / "tune.json").read_text())
    win = tune["best"]["number"]  # itl_ms 1 (the grid's copy of the baseline is pruned)
    assert tune["best"]["params"] == {"itl_ms": 1}
    legs = _legs(out)
    assert set(legs) == {(r, t) for r in (1, 2, 3) for t in (0, win)}
    assert {k: legs[k].stat().st_mtime_ns for k in before} == before  # not measured again
    for killed in (termed, running):  # measured afresh in another folder
        assert not (killed / "leg.json").exists()
    _no_server_left(out)

    assert tune["schema_version"] == 3 and tune["complete"]
    conf = tune["confirm"]
    assert conf["complete"] and conf["winner"] == win and conf["call"] == "confirmed"
    assert conf["pick"] == win and conf["pick_command"] == tune["best_command"]
    assert [(c["trial"], c["role"]) for c in conf["contestants"]] == [
        (win, "winner"),
        (0, "runner-up, baseline"),
    ]
    assert conf["comparisons"][0]["ci95_pct"][0] > 2.0
    assert conf["selection"]["luck"] in ("lucky", "unlucky", "within")
    assert json.loads(legs[(2, 0)].read_text())["folder"].startswith("confirm/r2-t000")
    assert (
        f"best: trial {win} +" in console
        and "over the runner-up (trial 0, the baseline;" in console
    )
    assert ", confirmed" in console and "selection error: the search's score" in console

    done = {k: p.stat().st_mtime_ns for k, p in legs.items()}
    assert main(["tune", "--resume", str(out), "--quiet"]) == 0  # a finished tune
    assert {k: p.stat().st_mtime_ns for k, p in _legs(out).items()} == done
    assert json.loads((out / "tune.json").read_text())["confirm"]["call"] == "confirmed"


def test_two_identical_candidates_are_a_tie_picked_by_the_simpler_diff(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    space = _space(tmp_path, same=True, rounds=2)  # the fewest rounds with a spread
    assert main(["tune", str(space), "--out", str(out), "--quiet"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    conf = tune["confirm"]
    numbers = [t["number"] for t in tune["trials"]]
    assert len(numbers) == 2  # a and b (the grid's copy of the baseline is pruned)
    assert conf["complete"] and set(_legs(out)) == {(r, t) for r in (1, 2) for t in numbers}
    assert conf["call"] == "tie", conf["comparisons"]
    assert conf["pick"] == 0  # the baseline: no change at all
    assert conf["pick_by"].startswith("a tie within noise, picked by the simpler diff")
    _no_server_left(out)
    # each trial's and leg's report carries the client's self-test, against the one simulator
    # the tune held (tests/integration/test_tune_self_test.py), stopped with the tune
    reports = [*out.glob("trials/*/latency.json"), *out.glob("confirm/*/latency.json")]
    assert len(reports) == 2 + 2 * 2
    for path in reports:
        assert json.loads(path.read_text())["calibration"]["requests"] == QUICK.requests, path
    assert quick_simulators_of_this_process() == []


def test_no_confirm_measures_nothing_after_the_search(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    space = str(_space(tmp_path, same=True))
    assert main(["tune", space, "--out", str(out), "--quiet", "--no-confirm"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    assert tune["confirm"] is None and not (out / "confirm").exists()
