"""A throughput (GPU MODE Paris) tune end to end on simulators: the objective is the
gate's own score (weighted tok/s, ``gate.json``'s ``grader_score``), the faster candidate
wins, and the console speaks tok/s, not the latency profile's ×."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.gate.report import GateReport
from tests.fixtures.tune_profiles import paris_quick

pytestmark = pytest.mark.timeout(300)


def test_a_throughput_tune_scores_by_the_gates_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = tmp_path / "space.toml"
    space.write_text(
        f"""
name = "paris"
profile = "{paris_quick(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --ttft-ms 2 --itl-ms {{itl_ms}}"
stop_grace_s = 3
[params]
itl_ms = [8, 1]
[baseline]
itl_ms = 8
[confirm]
rounds = 0
"""
    )
    out = tmp_path / "tune"
    assert main(["tune", str(space), "--out", str(out)]) == 0
    tune = json.loads((out / "tune.json").read_text())
    assert tune["score_name"] == "weighted tok/s"  # the throughput kind's own name
    trials = {t["params"]["itl_ms"]: t for t in tune["trials"]}
    assert set(trials) == {8, 1} and all(t["status"] == "ok" for t in trials.values())
    for t in trials.values():  # the objective is the gate's score of the trial's folder
        gate = GateReport.load(out / t["folder"])
        assert gate.score_name == "weighted tok/s"
        assert t["score"] == pytest.approx(gate.grader_score)
    assert tune["best"]["number"] == trials[1]["number"]  # 8× less time per token
    shown = capsys.readouterr().out
    assert "▸ throughput" in shown
    results = [line for line in shown.splitlines() if line.startswith(("trial ", "best:"))]
    assert results and not any("×" in line for line in results)  # tok/s is no speedup
    assert main(["report", str(out), "--no-html"]) == 0
    page = capsys.readouterr().out
    assert f"{trials[1]['score']:.3f}" in page and "×" not in page
