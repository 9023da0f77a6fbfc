"""The tuner measures only its own candidate (harness/tune/launch/own.py): another server already
at the candidate's URL is ``failed-to-start`` before anything is launched, for a trial and
for a confirmation leg; a launcher whose server escapes its process group (as ``docker run
-d`` would) leaves the URL answering after the stop, and the trial is ``void``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.profiles import load_profile
from harness.tune.confirm.leg import run_leg, speed_kind
from harness.tune.launch import own
from harness.tune.launch.candidate import free_port
from harness.tune.space import load_space
from harness.tune.trial import run_trial
from tests.fixtures.tune_profiles import without_quality

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[2]
SIM = [sys.executable, "-m", "harness", "simulate", "--quiet", "--ttft-ms", "5", "--itl-ms", "1"]

# a launcher that starts its server in a session of its own and stays alive itself
LAUNCHER = """#!/bin/sh
setsid -f sh -c 'echo $$ > "$2"; shift 2; exec "$@"' sh "$1" "$2" "$3" -m harness simulate \
  --quiet --ttft-ms 5 --itl-ms 1 --port "$1"
exec sleep 600
"""


def _space(tmp_path: Path, serve: str) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "own"
profile = "{without_quality(tmp_path)}"
[serve]
{serve}
ready_timeout_s = 60
stop_grace_s = 3
[params]
a = [1]
[options]
runs = 2
warmup = 0
buckets = "short"
max_gen_toks = 16
[race]
enabled = false
"""
    )
    return path


def _other_server(port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([*SIM, "--port", str(port)], env=env, stdout=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not own.answers(f"http://127.0.0.1:{port}"):
        assert proc.poll() is None and time.monotonic() < end, "the other server did not start"
        time.sleep(0.1)
    return proc


def test_another_server_at_the_url_is_failed_to_start_before_any_launch(tmp_path: Path) -> None:
    port = free_port()
    other = _other_server(port)
    try:
        url = f"http://127.0.0.1:{port}"
        serve = f'command = "{" ".join(SIM)} --port {{port}}"\nurl = "{url}"'
        space = load_space(_space(tmp_path, serve))
        profile = load_profile(space.profile)
        folder = tmp_path / "t000"
        folder.mkdir()
        got = run_trial(space, profile, {"a": 1}, folder, None, name="own-t000")
        assert got.status == "failed-to-start"
        assert f"another server answers at {url}" in got.why
        assert not (folder / "candidate.json").exists()  # nothing was launched
        kind = speed_kind(profile, space)
        assert kind is not None
        leg_dir = tmp_path / "r1-t000"
        leg_dir.mkdir()
        leg = run_leg(space, profile, kind, {"a": 1}, leg_dir, round_no=1, trial=0, rel="r1")
        assert leg.status == "failed-to-start" and leg.cold_start_s is None
        assert f"another server answers at {url}" in leg.why
    finally:
        other.terminate()
        other.wait(timeout=10)


def test_a_server_that_outlives_its_launcher_makes_the_trial_void(tmp_path: Path) -> None:
    launcher = tmp_path / "launch.sh"
    launcher.write_text(LAUNCHER)
    pidfile = tmp_path / "server.pid"
    serve = f'command = "sh {launcher} {{port}} {pidfile} {sys.executable}"'
    space = load_space(_space(tmp_path, serve))
    folder = tmp_path / "t000"
    folder.mkdir()
    try:
        got = run_trial(space, load_profile(space.profile), {"a": 1}, folder, None, name="t")
    finally:
        if pidfile.exists():
            os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert got.status == "void"
    assert "still answers" in got.why and "after the candidate was stopped" in got.why
    assert got.objective == 0.0  # nothing of it counts
    # the measured reports stay (evidence), but the ledger leaves the folder out, saying why
    assert (folder / "latency.json").is_file()
    marker = (folder / "hidden").read_text()
    assert marker.startswith("hidden by harness tune (void: ") and "still answers" in marker
