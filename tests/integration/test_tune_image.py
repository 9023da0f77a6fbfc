"""harness tune over an image (Podman): candidates are containers of one image that serves
the simulator, differing by an environment variable; every container is removed, and a
``kill -9`` of harness leaves one running (a container does not die with its parent) that
``--resume`` removes.

A trial is check → latency (the profile without its quality gates and its audit): what is
special about an image candidate is its container; every step after the start is given the
candidate's URL alike, a container's or a process's, and a tune's quality step is held by
tests/integration/test_tune_simulator.py."""

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
from tests.fixtures.podman import PodmanService
from tests.fixtures.python_image import build_simulator_image
from tests.fixtures.tune_profiles import speed_only

pytestmark = [pytest.mark.podman, pytest.mark.timeout(600)]

TAG = "harness-test/tune-sim:1"
ARGS = "--accuracy 1.0 --ttft-ms 30"


@pytest.fixture(scope="module")
def sim_image(podman: PodmanService) -> str:
    build_simulator_image(podman, TAG)
    return TAG


def _space(tmp_path: Path, podman: PodmanService, image: str, *, itl: str = "[4, 1]") -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "imgtune"
profile = "{speed_only(tmp_path)}"
[serve]
image = "{image}"
docker_host = "{podman.socket_url}"
env = {{ SIM_ITL_MS = "{{itl_ms}}" }}
args = "{ARGS}"
ready_timeout_s = 120
stop_grace_s = 3
[params]
itl_ms = {itl}
[baseline]
itl_ms = 4
[budget]
trials = 4
[confirm]
rounds = 0
[options]
runs = 3
warmup = 1
buckets = "short"
latency_mode = "official"
max_gen_toks = 64
"""
    )
    return path


def _tune_containers(podman: PodmanService) -> list[str]:
    """What `podman ps -a` lists of the tune's containers (label harness=tune)."""
    listed = podman.podman("ps", "-a", "--filter", "label=harness=tune", "--format", "{{.ID}}")
    assert listed.returncode == 0, listed.stderr
    return listed.stdout.split()


def _records(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("trials/*/candidate.json"))]


def test_tune_over_two_env_values_of_an_image(
    podman: PodmanService, sim_image: str, tmp_path: Path
) -> None:
    out = tmp_path / "tune"
    space = _space(tmp_path, podman, sim_image)
    assert main(["tune", str(space), "--out", str(out), "--quiet"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    assert tune["stopped_by"] == "grid exhausted"
    assert sorted(t["params"]["itl_ms"] for t in tune["trials"]) == [1, 4]
    assert {t["status"] for t in tune["trials"]} == {"ok"}
    assert tune["best"]["params"] == {"itl_ms": 1}  # 1 ms a token against 4: a 3× gap
    line = f"docker run --rm -p 8080:8080 -e SIM_ITL_MS=1 {sim_image} {ARGS}"
    assert tune["best_command"] == line
    best = out / tune["best"]["folder"]
    assert (best / "Dockerfile").read_text() == (
        f'FROM {sim_image}\nENV SIM_ITL_MS="1"\nCMD ["--accuracy", "1.0", "--ttft-ms", "30"]\n'
    )
    records = _records(out)
    assert len(records) == 2 and all(r["image"] == sim_image for r in records)
    assert sorted(r["env"]["SIM_ITL_MS"] for r in records) == ["1", "4"]
    for t in tune["trials"]:
        params = json.loads((out / t["folder"] / "params.json").read_text())
        assert params["url"].endswith(":8080")  # the container's address, the profile's port
        assert (out / t["folder"] / "latency.json").is_file()
        assert (out / t["folder"] / "server.log").stat().st_size > 0  # the engine's log, kept
    assert _tune_containers(podman) == []


def test_an_image_candidate_that_exits_is_failed_to_start_with_its_log(
    podman: PodmanService, sim_image: str, tmp_path: Path
) -> None:
    """A bad flag makes the simulator exit at once: the trial says so with the engine's log,
    the search goes on, and the container is gone."""
    out = tmp_path / "tune"
    space = _space(tmp_path, podman, sim_image)
    text = space.read_text().replace(f'args = "{ARGS}"', 'args = "--accuracy 1.0 {itl_ms}"')
    text = text.replace("itl_ms = [4, 1]", 'itl_ms = ["--no-such-flag", ""]')
    text = text.replace("itl_ms = 4\n", 'itl_ms = ""\n').replace('SIM_ITL_MS = "{itl_ms}"', "")
    space.write_text(text)
    assert main(["tune", str(space), "--out", str(out), "--quiet"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    bad = next(t for t in tune["trials"] if t["params"]["itl_ms"] == "--no-such-flag")
    assert bad["status"] == "failed-to-start"
    assert "exited with code 2 before it was ready" in bad["why"]
    assert "--no-such-flag" in bad["log_tail"]
    good = next(t for t in tune["trials"] if t["params"]["itl_ms"] == "")
    assert good["status"] == "ok"
    assert _tune_containers(podman) == []


def test_kill_9_leaves_the_container_and_resume_removes_it(
    podman: PodmanService, sim_image: str, tmp_path: Path
) -> None:
    out = tmp_path / "tune"
    space = _space(tmp_path, podman, sim_image)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    argv = [sys.executable, "-m", "harness", "tune", str(space), "--out", str(out), "--quiet"]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
    )
    record = out / "trials" / "t000" / "candidate.json"
    deadline = time.monotonic() + 180
    while not (record.exists() and _tune_containers(podman)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert record.exists()
    cid = json.loads(record.read_text())["container"]
    time.sleep(1.0)  # the trial is under way
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # the engine runs the container, not harness: it outlives a kill -9
    assert [c for c in _tune_containers(podman) if cid.startswith(c)]
    assert main(["tune", "--resume", str(out), "--quiet"]) == 0
    assert _tune_containers(podman) == []
    tune = json.loads((out / "tune.json").read_text())
    measured = [t for t in tune["trials"] if t["status"] != "interrupted"]
    assert sorted(t["params"]["itl_ms"] for t in measured) == [1, 4]  # each once
    assert [t["number"] for t in tune["trials"] if t["status"] == "interrupted"] == [0]


def test_no_such_image_is_one_line_before_any_trial(
    podman: PodmanService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tune"
    space = _space(tmp_path, podman, "harness-test/absent:1")
    assert main(["tune", str(space), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "serve.image: harness-test/absent:1: no such image in the engine" in err
    assert "Traceback" not in err
    assert not list(out.glob("trials/*/candidate.json"))
