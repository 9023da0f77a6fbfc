"""harness compare on two Paris throughput sweeps of the simulator: B decodes at half speed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare.model import CompareReport
from harness.throughput.compare import ThroughputSection

pytestmark = pytest.mark.timeout(180)

# 16 requests: 4 waves at level 4, so compare can estimate each run's drift over its waves
# (with 8, two waves give one degree of freedom and a band too wide to call even -50 %)
SWEEP = ["--profile", "gpumode-paris", "--levels", "1,4", "--requests-per-level", "16"]
SWEEP += ["--prompt-tokens", "32", "--max-tokens", "32", "--spot-checks", "0", "--seed", "1"]
SWEEP += ["--ready-interval", "0.2", "--quiet"]


PARIS_MODEL = ("Qwen/Qwen3.5-35B-A3B",)  # official mode sends the profile's model, as the grader


def sweep(url: str, out: Path) -> Path:
    assert main(["throughput", "--url", url, *SWEEP, "--out", str(out)]) == 0
    return out


def test_half_speed_decoding_is_lower_per_level_and_in_score(sim_process, tmp_path, capsys):
    a = sweep(
        sim_process(ttft_ms=5, itl_ms=2, output_tokens=32, models=PARIS_MODEL).url, tmp_path / "a"
    )
    b = sweep(
        sim_process(ttft_ms=5, itl_ms=4, output_tokens=32, models=PARIS_MODEL).url, tmp_path / "b"
    )
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--quiet", "--no-save"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    tp = rep.section(ThroughputSection)
    assert tp is not None
    assert [lv.concurrency for lv in tp.levels] == [1, 4]
    for lv in tp.levels:
        assert lv.verdict == "lower", lv
        assert lv.ci95 is not None and lv.ci95[1] < 0
        assert lv.diff_pct is not None and -70 < lv.diff_pct < -25  # about half the tok/s
    score = tp.score
    assert score is not None and score.verdict == "lower" and score.ci95 is not None
    assert score.ci95[1] < 0


def test_other_max_tokens_is_refused(sim_process, tmp_path, capsys):
    url = sim_process(ttft_ms=1, itl_ms=0, output_tokens=16, models=PARIS_MODEL).url
    a = sweep(url, tmp_path / "a")
    args = list(SWEEP)
    args[args.index("--max-tokens") + 1] = "16"
    assert main(["throughput", "--url", url, *args, "--out", str(tmp_path / "b")]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(tmp_path / "b")]) == 2
    assert "throughput max_tokens: A 32, B 16" in capsys.readouterr().err
