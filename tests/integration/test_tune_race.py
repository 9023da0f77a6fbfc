"""harness tune's race on two simulator candidates: a clearly slower one is stopped as soon
as its speed's 95 % bound is below the incumbent's score (``lost-race``), with fewer timed
requests than the full procedure; ``[race] enabled = false`` measures it in full."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.fixtures.tune_profiles import without_quality

pytestmark = pytest.mark.timeout(300)

RUNS = 15  # above the race's floor of 10 successes, where a clear loser stops
SLOW = "--ttft-ms 150"  # ~215 ms a request against the baseline's ~65 ms (128 tokens)


def _space(tmp_path: Path, race: str) -> Path:
    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "simrace"
profile = "{without_quality(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --itl-ms 0.5 {{slow}}"
stop_grace_s = 3
[params]
slow = ["", "{SLOW}"]
[baseline]
slow = ""
[options]
runs = {RUNS}
warmup = 1
buckets = "short"
latency_mode = "official"
{race}
"""
    )
    return path


def _tune(tmp_path: Path, race: str = "") -> tuple[dict, Path]:
    out = tmp_path / "tune"
    # no confirmation: the race is the search's (tests/integration/test_tune_confirm.py)
    argv = ["tune", str(_space(tmp_path, race)), "--out", str(out), "--quiet", "--no-confirm"]
    assert main(argv) == 0
    return json.loads((out / "tune.json").read_text()), out


def _timed(folder: Path) -> list[dict]:
    latency = json.loads((folder / "latency.json").read_text())
    return [r for r in latency["requests"] if r["phase"] == "timed"], latency


def test_a_clearly_slower_candidate_loses_the_race(tmp_path: Path) -> None:
    tune, out = _tune(tmp_path)
    base, slow = tune["trials"]
    assert base["note"] == "baseline" and base["status"] == "ok"
    assert slow["status"] == "lost-race" and slow["feasible"] and slow["score"] is None
    assert slow["why"].startswith("score ≤ ") and "(95 % bound) < incumbent" in slow["why"]
    assert f"of {RUNS} runs in short" in slow["why"]
    assert tune["best"]["number"] == base["number"]
    rows, latency = _timed(out / slow["folder"])
    # the floor of the sequence is 10 successes: a clear loser stops there, not at RUNS
    assert 10 <= len(rows) < RUNS
    assert latency["complete"] is False and latency["settings"]["official_procedure"] is False
    assert latency["settings"]["stopped_by"] == slow["why"]
    assert any(f["kind"] == "run_stopped" for f in latency["flags"])
    gate = json.loads((out / slow["folder"] / "gate.json").read_text())
    assert gate["verdict"] == "INCOMPLETE"  # labelled partial: never ranked in the ledger
    base_rows, base_latency = _timed(out / base["folder"])
    assert len(base_rows) == RUNS and "stopped_by" not in base_latency["settings"]


def test_race_switched_off_measures_every_run(tmp_path: Path) -> None:
    tune, out = _tune(tmp_path, "[race]\nenabled = false\n")
    base, slow = tune["trials"]
    # no quality gate in this profile, but the audit waits like quality for a trial that
    # could win: measured in full, it is simply "slower"
    assert slow["status"] == "slower" and slow["score"] < base["score"]
    rows, latency = _timed(out / slow["folder"])
    assert len(rows) == RUNS and latency["complete"] is True
