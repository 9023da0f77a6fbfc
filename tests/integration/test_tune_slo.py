"""harness tune on simulators with SLOs in SPACE.toml: the fastest candidate answers with a
long time to first token, violates ``median_ttft_ms ≤ 80`` and is never recommended; the
"no bucket slower than the baseline" SLO is checked against the baseline trial's folder.
A tail SLO (``p99_ttft_ms ≤ 80``) that 3 runs can never show is refused before anything
starts.
A conditional parameter (the TTFT of the fast candidate only) is filled only where it is
active."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from tests.fixtures.tune_profiles import speed_only

pytestmark = pytest.mark.timeout(300)

SIM = f"{sys.executable} -m harness simulate --port {{port}} --quiet"


def _space(tmp_path: Path, ttft: str = "median_ttft_ms") -> Path:
    path = tmp_path / "space.toml"
    # e2e of the short bucket (128 tokens): itl 4 → ~520 ms, itl 3 → ~390 ms,
    # itl 1 with a 150 ms TTFT → ~280 ms: the fastest, and its TTFT breaks the SLO
    path.write_text(
        f"""
name = "simslo"
profile = "{speed_only(tmp_path)}"
[serve]
command = "{SIM} --itl-ms {{itl_ms}} --ttft-ms={{ttft_ms}}"
stop_grace_s = 3
[params]
itl_ms = [4, 3, 1]
[params.ttft_ms]
choices = [150]
when = {{ itl_ms = 1 }}
[baseline]
itl_ms = 4
[budget]
trials = 5
[options]
runs = 3
warmup = 1
buckets = "short"
[race]
enabled = false
[confirm]
rounds = 0
[[slo]]
metric = "{ttft}"
bucket = "short"
max = 80
[[slo]]
metric = "median_e2e_ms"
max = "baseline"
slack_pct = 10
"""
    )
    return path


def test_an_slo_disqualifies_the_otherwise_fastest_candidate(tmp_path: Path) -> None:
    out = tmp_path / "tune"
    assert main(["tune", str(_space(tmp_path)), "--out", str(out), "--quiet"]) == 0
    tune = json.loads((out / "tune.json").read_text())
    trials = {t["params"]["itl_ms"]: t for t in tune["trials"]}
    assert sorted(trials) == [1, 3, 4] and len(tune["trials"]) == 3
    assert tune["stopped_by"] == "grid exhausted"
    fast = trials[1]
    assert fast["params"] == {"itl_ms": 1, "ttft_ms": 150}
    assert fast["status"] == "slo-failed" and not fast["feasible"]
    assert fast["why"].startswith("slo[0] median_ttft_ms ≤ 80 in short: measured ")
    assert fast["score"] > trials[3]["score"]  # the fastest by the grader's score
    assert "--ttft-ms=150" in fast["launch"]
    for itl in (3, 4):  # ttft_ms inactive: not in the launch, not in the diff
        assert trials[itl]["status"] == "ok", trials[itl]
        assert "ttft_ms" not in trials[itl]["params"] and "--ttft-ms" not in trials[itl]["launch"]
        assert "ttft" not in trials[itl]["note"]
    assert tune["best"]["params"] == {"itl_ms": 3}
    slo = json.loads((out / fast["folder"] / "slo.json").read_text())
    assert slo["ok"] is False and slo["checks"][0]["value"] > 80
    base = json.loads((out / trials[4]["folder"] / "slo.json").read_text())
    assert base["ok"] is True  # the baseline against itself
    kept = json.loads((out / trials[3]["folder"] / "slo.json").read_text())
    e2e = [c for c in kept["checks"] if c["text"].startswith("median_e2e_ms")]
    assert e2e and e2e[0]["ok"] and e2e[0]["limit"] is not None  # the baseline's, +10 %


def test_a_tail_slo_the_runs_cannot_show_is_refused_up_front(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "tune"
    assert main(["tune", str(_space(tmp_path, "p99_ttft_ms")), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert (
        "slo.0.metric: p99_ttft_ms ≤ 80 in short needs ≥ 459 samples with none over it to be "
        "shown at 99 %, and options.runs = 3 can never give that many — more runs "
        "(options.runs ≥ 459), or a median or mean SLO (median_ttft_ms)"
    ) in err
    assert not out.exists()


def test_a_confirmation_leg_checks_the_slos_again_on_its_own_report(tmp_path: Path) -> None:
    """A fresh restart measured by the confirmation is held to the same SLOs: its slo field
    says which one it broke (here a TTFT no server of this simulator meets)."""
    from harness.profiles import load_profile
    from harness.tune.confirm.leg import run_leg, speed_kind
    from harness.tune.space import load_space

    path = tmp_path / "space.toml"
    path.write_text(
        f"""
name = "legslo"
profile = "{speed_only(tmp_path)}"
[serve]
command = "{SIM} --itl-ms 1 --ttft-ms 30"
stop_grace_s = 3
[params]
a = [1]
[options]
runs = 2
warmup = 0
buckets = "short"
max_gen_toks = 16
[[slo]]
metric = "median_ttft_ms"
bucket = "short"
max = 5
"""
    )
    space = load_space(path)
    profile = load_profile(space.profile)
    kind = speed_kind(profile, space)
    assert kind is not None
    leg_dir = tmp_path / "r1-t000"
    leg_dir.mkdir()
    leg = run_leg(space, profile, kind, {"a": 1}, leg_dir, round_no=1, trial=0, rel="r1-t000")
    assert leg.status == "ok" and leg.score is not None  # the measurement stands
    assert leg.slo.startswith("slo[0] median_ttft_ms ≤ 5") and "> 5.0 ms" in leg.slo
    assert json.loads((leg_dir / "slo.json").read_text())["ok"] is False
