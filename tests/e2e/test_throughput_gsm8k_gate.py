"""The Paris correctness gate for real: lm-eval ``gsm8k_cot`` from our sample data, through
``local-chat-completions``, against the CPU reference server (SmolLM2-135M fails it, as it must).

The profile is the Paris profile with one change: the reference server serves the name
``reference``, not the grader's model (``harness quality`` has no ``--model`` yet).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.profiles import PROFILES_DIR, load_profile
from harness.quality.report import QualityReport
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_gsm8k_gate_through_the_paris_profile(
    reference_server: ServerProcess, tmp_path: Path
) -> None:
    text = (PROFILES_DIR / "gpumode-paris.toml").read_text(encoding="utf-8")
    paris = tmp_path / "paris.toml"
    paris.write_text(text.replace('model = "Qwen/Qwen3.5-35B-A3B"', 'model = "reference"', 1))
    assert load_profile(str(paris)).server.model == "reference"
    out = tmp_path / "run"
    rc = main(
        [
            "quality",
            "--profile",
            str(paris),
            "--url",
            reference_server.url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--max-gen-toks",
            "96",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    report = QualityReport.load(out)
    assert report.endpoint == "/v1/chat/completions"
    assert report.non_official["max_gen_toks"] == 96 and not report.official
    assert set(report.non_official) == {"max_gen_toks", "sample_data"}  # tasks/samples
    (gsm,) = report.benchmarks
    assert (gsm.task, gsm.metric, gsm.threshold) == (
        "gsm8k_cot",
        "exact_match,flexible-extract",
        0.875,
    )
    n_docs = sum(1 for _ in (SAMPLES_DIR / "gsm8k" / "test.jsonl").open())
    assert gsm.error is None and gsm.errors == 0
    assert gsm.n == n_docs == gsm.requests  # 200 by profile, capped by the 5 sample problems
    assert 1 <= gsm.concurrency_max <= 8
    assert "exact_match,strict-match" in gsm.other_metrics
    # the score is the share of flexible-extract answers lm-eval marked correct
    rows = [json.loads(line) for line in (out / (gsm.samples_file or "")).open()]
    flexible = [r for r in rows if r["filter"] == "flexible-extract"]
    assert len(flexible) == n_docs and all(r["response"] for r in flexible)
    assert gsm.score == pytest.approx(sum(r["correct"] for r in flexible) / n_docs)
    # a 135M model does not reach 87.5 % on GSM8K: the gate says FAIL, exit 1
    assert gsm.score is not None and gsm.score < gsm.threshold
    assert (rc, gsm.passed, report.passed) == (1, False, False)
