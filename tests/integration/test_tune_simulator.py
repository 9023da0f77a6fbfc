"""harness tune over two simulator knobs (speed and a "quantisation" that is faster but
answers wrong): the trap is never chosen; a kill -9 mid-run, then --resume, finishes with
no trial measured twice and no candidate left running. The search only (the space's
confirmation off: tests/integration/test_tune_confirm.py holds it), official latency."""

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
from harness.data.layout import SAMPLES_DIR
from harness.manifest.diff import diff_settings
from harness.manifest.model import load_manifest
from harness.tune.launch.candidate import group_alive
from tests.fixtures.tune_profiles import multiple_choice_quality

pytestmark = pytest.mark.timeout(400)

GOOD = "--accuracy 1.0 --ttft-ms 30"
TRAP = "--accuracy 0.0"  # no TTFT: the fastest, and fails MMLU-Pro


def _space(tmp_path: Path) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "simtrap"
profile = "{multiple_choice_quality(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --itl-ms {{itl_ms}} {{quant}}"
stop_grace_s = 3
[params]
itl_ms = [4, 1]
quant = ["{GOOD}", "{TRAP}"]
[baseline]
itl_ms = 4
quant = "{GOOD}"
[budget]
trials = 10
[confirm]
rounds = 0
[options]
runs = 3
warmup = 1
buckets = "short"
latency_mode = "official"
limit = 0.1
max_gen_toks = 64
data_dir = "{SAMPLES_DIR}"
"""
    )
    return path


def _pgids(out: Path) -> list[int]:
    return [
        int(json.loads(p.read_text())["pgid"]) for p in sorted(out.glob("trials/*/candidate.json"))
    ]


def _check_done(out: Path) -> dict:
    tune = json.loads((out / "tune.json").read_text())
    measured = [t for t in tune["trials"] if t["status"] != "interrupted"]
    keys = [(t["params"]["itl_ms"], t["params"]["quant"]) for t in measured]
    assert sorted(keys) == sorted({(4, GOOD), (4, TRAP), (1, GOOD), (1, TRAP)})  # once each
    assert tune["stopped_by"] == "grid exhausted"
    best = tune["best"]
    assert best["params"] == {"itl_ms": 1, "quant": GOOD}
    assert tune["best_command"] == best["launch"] and "--itl-ms 1" in best["launch"]
    for t in measured:
        if t["params"]["quant"] == TRAP:
            assert t["status"] in ("gate-failed", "slower", "tie"), t
        assert t["folder"] and (out / t["folder"] / "params.json").is_file()
    trap_fast = next(t for t in measured if t["params"] == {"itl_ms": 1, "quant": TRAP})
    assert trap_fast["status"] == "gate-failed" and not trap_fast["feasible"]
    baseline = next(t for t in measured if t["note"] == "baseline")
    assert baseline["number"] == 0
    _check_manifests(out, measured)
    for pgid in _pgids(out):
        assert not group_alive(pgid)
    return tune


def _check_manifests(out: Path, measured: list[dict]) -> None:
    """Each trial's manifest.json carries the tuner's launch; one knob apart is another
    configuration, and the diff names it (docs/manifest.md)."""
    by_params = {}
    for t in measured:
        manifest = load_manifest(out / t["folder"])
        assert manifest is not None, t["folder"]
        assert manifest.settings["launch.by"] == "harness tune"
        assert f"--itl-ms {t['params']['itl_ms']}" in str(manifest.settings["launch.argv"])
        assert manifest.settings["harness_sim_config.itl_ms"] == t["params"]["itl_ms"]
        by_params[(t["params"]["itl_ms"], t["params"]["quant"])] = manifest
    slow, fast = by_params[(4, GOOD)], by_params[(1, GOOD)]
    assert slow.config_id != fast.config_id
    lines = [c.text for c in diff_settings(slow.settings, fast.settings)]
    assert any(line.startswith("itl_ms 4") for line in lines), lines


def _start_tune(tmp_path: Path, out: Path, *, stderr: int) -> subprocess.Popen[str]:
    """``harness tune`` over the test space as a child process, quiet."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    argv = [sys.executable, "-m", "harness", "tune", str(_space(tmp_path)), "--out", str(out)]
    return subprocess.Popen(
        [*argv, "--quiet"], env=env, stdout=subprocess.DEVNULL, stderr=stderr, text=True
    )


def _wait_for_candidate(out: Path, trial: str, *, timeout_s: float) -> Path:
    """The trial's candidate record, once written (its server started and recorded)."""
    record = out / "trials" / trial / "candidate.json"
    deadline = time.monotonic() + timeout_s
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert record.exists()
    return record


def test_kill_9_then_resume_never_picks_the_trap(tmp_path: Path) -> None:
    """One tune, killed with SIGKILL while trial 1 is measured, then resumed in-process:
    each grid point measured once, the fast candidate that fails MMLU-Pro never chosen,
    no candidate left running."""
    out = tmp_path / "tune"
    proc = _start_tune(tmp_path, out, stderr=subprocess.DEVNULL)
    record = _wait_for_candidate(out, "t001", timeout_s=180)
    time.sleep(1.0)  # trial 1 is being measured
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    pgid = int(json.loads(record.read_text())["pgid"])
    end = time.monotonic() + 10
    while group_alive(pgid) and time.monotonic() < end:  # PR_SET_PDEATHSIG
        time.sleep(0.1)
    assert not group_alive(pgid)
    # what the kill left says the study has not ended, and which trial it was measuring
    left = json.loads((out / "tune.json").read_text())
    assert not left["complete"] and left["stopped_by"] == ""
    assert [(t["number"], t["status"]) for t in left["trials"]][-1] == (1, "running")
    assert main(["tune", "--resume", str(out), "--quiet"]) == 0
    tune = _check_done(out)
    assert tune["complete"]
    assert [t["number"] for t in tune["trials"] if t["status"] == "interrupted"] == [1]


def test_sigterm_stops_the_candidate_and_saves_tune_json(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    proc = _start_tune(tmp_path, out, stderr=subprocess.PIPE)
    record = _wait_for_candidate(out, "t000", timeout_s=120)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "Traceback" not in err  # Optuna's warning of the stopped trial is not shown
    assert not group_alive(int(json.loads(record.read_text())["pgid"]))
    tune = json.loads((out / "tune.json").read_text())
    assert tune["stopped_by"] == "interrupted" and not tune["complete"]
    assert [t["status"] for t in tune["trials"]] == ["interrupted"]
