"""harness tune with a candidate flag that switches on an answer cache: the search would
crown it (its score is thousands of ×); the audit makes it ``audit-failed``, infeasible,
and the honest baseline stays the pick (issue 37)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.kind import KIND as LATENCY
from tests.fixtures.tune_profiles import without_quality

pytestmark = pytest.mark.timeout(300)


def test_a_cheating_candidate_is_audit_failed_and_never_the_pick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = tmp_path / "space.toml"
    space.write_text(
        f"""
name = "cheat"
profile = "{without_quality(tmp_path)}"
[serve]
command = "{sys.executable} -m harness simulate --port {{port}} --quiet --itl-ms 1 {{cache}}"
stop_grace_s = 3
[params]
cache = ["", "--cache-responses"]
[baseline]
cache = ""
[options]
runs = 4
warmup = 1
buckets = "short"
latency_mode = "official"
[race]
enabled = false
"""
    )
    out = tmp_path / "tune"
    assert main(["tune", str(space), "--out", str(out), "--no-confirm"]) == 0
    console = capsys.readouterr().out
    tune = json.loads((out / "tune.json").read_text())
    base, cheat = tune["trials"]
    assert base["status"] == "ok" and (out / base["folder"] / "audit.json").is_file()
    assert cheat["status"] == "audit-failed" and not cheat["feasible"]
    # the latency step warmed its cache: only the audit's controls reached the engine
    assert cheat["why"].startswith("audit rule cached_answers failed: response cache")
    assert tune["best"]["number"] == base["number"]
    audit = json.loads((out / cheat["folder"] / "audit.json").read_text())
    assert {v["rule"]: v["result"] for v in audit["rules"]}["cached_answers"] == "fail"
    # every step each trial ran says its result: in tune.json, on the console, on the page
    rules = len(audit["rules"])
    assert list(base["steps"]) == ["check", "latency", "audit"]  # no quality in this profile
    assert base["steps"]["check"].startswith("checks ")
    assert LATENCY.score is not None
    assert base["steps"]["latency"] == LATENCY.score.text(base["score"])  # one format: 20.13×
    assert base["steps"]["audit"].startswith(f"{rules} rules judged, none fails")
    assert cheat["steps"]["audit"].startswith("✗ audit rule cached_answers failed")
    assert f"audit {rules} rules judged, none fails" in console
    assert "✗ audit rule cached_answers failed" in console
    assert main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert f"audit {rules} rules judged, none fails" in page
