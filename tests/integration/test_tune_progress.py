"""harness tune says what it is doing: each trial's start, the wait for its server and how
long it took, each step as the gate shows it; a stopped tune ends with its resume line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.tune.record.report import TuneReport
from harness.tune.show.render import render_tune
from tests.fixtures.tune_profiles import multiple_choice_quality, without_quality

pytestmark = pytest.mark.timeout(300)


def _space(tmp_path: Path) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "progress"
profile = "{without_quality(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --ttft-ms 5 --itl-ms {{itl_ms}}"
stop_grace_s = 3
[params]
itl_ms = [1]
[budget]
trials = 1
[options]
runs = 2
warmup = 0
buckets = "short"
max_gen_toks = 16
[confirm]
rounds = 0
"""
    )
    return path


def test_every_step_of_a_trial_is_said_as_it_happens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tune"
    assert main(["tune", str(_space(tmp_path)), "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    said = [
        next(i for i, line in enumerate(lines) if line.startswith(prefix))
        for prefix in (
            "trial   0 starting",
            "  started; waiting for http://127.0.0.1:",
            "  ready after ",
            "  ▸ check",
            "  ▸ latency",
            "trial   0    #1",  # the trial's result line
        )
    ]
    assert said == sorted(said)  # in the order they happen
    assert not any(line.startswith("resume:") for line in lines)  # it finished
    # the trial's reports name the profile so that their command line runs again
    argv = json.loads((out / "trials" / "t000" / "check.json").read_text())["provenance"]
    given = argv["command_line"]
    assert given[given.index("--profile") + 1] == str(tmp_path / "profile.toml")


def test_a_stopped_tune_ends_with_its_resume_line(tmp_path: Path) -> None:
    report = TuneReport(name="t", sampler="grid", score_name="mean speedup")
    report.stopped_by = "interrupted"
    buf = io.StringIO()
    render_tune(Console(file=buf, width=200), report, str(tmp_path / "my tune"))
    assert f"resume: harness tune --resume '{tmp_path / 'my tune'}'" in buf.getvalue()


def test_third_party_progress_bars_stay_off_a_tunes_console(tmp_path: Path) -> None:
    """lm-eval's tqdm bars and datasets' ("Generating test split", "Filter: 100%") once
    flooded a tune's quality step; the tune's own step lines stay."""
    space = tmp_path / "space.toml"
    space.write_text(
        f"""
name = "q"
profile = "{multiple_choice_quality(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --itl-ms 1 --accuracy 1.0"
stop_grace_s = 3
[params]
a = [1]
[budget]
trials = 1
[options]
runs = 2
warmup = 0
buckets = "short"
limit = 0.1
max_gen_toks = 16
data_dir = "{SAMPLES_DIR}"
[confirm]
rounds = 0
"""
    )
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    argv = [sys.executable, "-m", "harness", "tune", str(space), "--out", str(tmp_path / "o")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert "  ▸ quality" in done.stdout
    for noise in ("it/s", "Generating", "Filter", "examples/s"):
        assert noise not in done.stdout + done.stderr, noise
