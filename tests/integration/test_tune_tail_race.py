"""harness tune on simulators with a tail SLO (``p90_ttft_ms ≤ 80`` in short, 44 strict
runs: the fewest that can show a p90 met at 99 %). The baseline answers with a
heavy-tailed TTFT (median 40 ms, lognormal jitter of 100 %: its p90 is about 144 ms) and
is stopped early, ``slo-failed``, long before its 44 runs; the other candidate (TTFT 5 ms,
no jitter) meets the SLO and is measured in full. An ``until_ci_at`` percentile that
could never stop within the runs is refused before anything starts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.fixtures.tune_profiles import speed_only

pytestmark = pytest.mark.timeout(120)

SIM = f"{sys.executable} -m harness simulate --port {{port}} --quiet --itl-ms 0.25 --seed 3"


def test_a_trial_breaking_a_p90_slo_is_stopped_and_one_meeting_it_is_not(
    tmp_path: Path,
) -> None:
    space = tmp_path / "space.toml"
    space.write_text(
        f"""
name = "tailrace"
profile = "{speed_only(tmp_path)}"
[serve]
command = "{SIM} {{ttft}}"
stop_grace_s = 3
[params]
ttft = ["--ttft-ms 40 --jitter-pct 100", "--ttft-ms 5"]
[baseline]
ttft = "--ttft-ms 40 --jitter-pct 100"
[budget]
trials = 2
[options]
runs = 44
warmup = 0
buckets = "short"
latency_mode = "strict"
[[slo]]
metric = "p90_ttft_ms"
bucket = "short"
max = 80
"""
    )
    out = tmp_path / "tune"
    assert main(["tune", str(space), "--out", str(out), "--quiet", "--no-confirm"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    trials = {t["params"]["ttft"].split()[1]: t for t in tune["trials"]}
    heavy, fast = trials["40"], trials["5"]

    assert heavy["status"] == "slo-failed" and not heavy["feasible"]
    assert heavy["why"].startswith("slo[0] p90_ttft_ms ≤ 80 in short: cannot be shown met: ")
    assert "44 runs may hold at most 0 to show it at 99%" in heavy["why"]
    report = json.loads((out / heavy["folder"] / "latency.json").read_text())
    timed = [r for r in report["requests"] if r["phase"] == "timed"]
    assert report["complete"] is False and 1 <= len(timed) < 44
    assert report["settings"]["stopped_by"] == heavy["why"]
    slo = json.loads((out / heavy["folder"] / "slo.json").read_text())
    assert slo["ok"] is False and slo["stopped_early"] == heavy["why"]

    assert fast["status"] == "ok", fast
    report = json.loads((out / fast["folder"] / "latency.json").read_text())
    assert report["complete"] is True
    assert len([r for r in report["requests"] if r["phase"] == "timed"]) == 44
    checks = json.loads((out / fast["folder"] / "slo.json").read_text())["checks"]
    assert [(c["ok"], c["samples"], c["over"]) for c in checks] == [(True, 44, 0)]
    assert tune["best"]["params"] == {"ttft": "--ttft-ms 5"}


def test_an_until_ci_percentile_that_could_never_stop_is_refused_up_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space = tmp_path / "space.toml"
    space.write_text(
        f"""
profile = "{speed_only(tmp_path)}"
[serve]
command = "{SIM} --ttft-ms 5"
[params]
a = [1]
[options]
runs = 44
until_ci = 5
until_ci_at = "p95"
"""
    )
    out = tmp_path / "tune"
    assert main(["tune", str(space), "--out", str(out), "--no-confirm"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert "SPACE.toml: options.until_ci_at: no 95 % interval of a p95 exists within 44 runs" in err
    assert not out.exists()
