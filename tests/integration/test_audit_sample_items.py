"""Benchmark data has one rule (issue 47, item 3): a step reads the grader's data, and
harness's sample data, where it stands in, is said. The gate refuses a missing file with
the `harness data fetch` line (tests/integration/test_gate_options.py); the audit's
quality items (benchmark_detection's quality half) fall back to the shipped samples where
the data folder lacks a file, and then say so: ``audit.json`` → ``sample_items``, a line
under its table, and a ``sample_data`` risk flag in the gate."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.audit.report import AuditReport
from harness.gate.judge import judge_folder
from harness.grader_items import SAMPLES
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(180)

HONEST = {"ttft_ms": 2.0, "itl_ms": 1.0, "seed": 7}


def _audit(url: str, out: Path, data: Path, reports: Path) -> str:
    argv = ["audit", "--url", url, "--out", str(out), "--rounds", "2", "--data-dir", str(data)]
    answer = run_harness(argv, reports=reports)
    assert "Traceback" not in answer.stderr and answer.rc in (0, 1, 3), answer.stderr
    return " ".join(answer.stdout.split())  # the console folds long lines


def test_the_audit_says_when_its_quality_items_are_harness_samples(sim_process, tmp_path):
    sim = sim_process(**HONEST)
    empty = tmp_path / "nodata"
    empty.mkdir()
    shown = _audit(sim.url, tmp_path / "a", empty, tmp_path / "reports")
    files = ["ifeval/train.jsonl", "gpqa/gpqa_diamond.jsonl"]
    said = (
        "audit: benchmark_detection asked harness's sample items (ifeval/train.jsonl,"
        " gpqa/gpqa_diamond.jsonl), not the grader's: a server keyed on the grader's items is"
        " not seen by them; the grader's data: harness data fetch --only ifeval,gpqa"
    )
    assert AuditReport.load(tmp_path / "a").sample_items == files
    assert said in shown
    gate = judge_folder(tmp_path / "a", load_profile("efficient-qwen"), Provenance())
    assert [f.text for f in gate.flags if f.kind is FlagKind.SAMPLE_DATA] == [said]
    # a data folder holding the grader's IFEval file (here: a row of ours, not the sample's
    # bytes): only GPQA stands in
    own = tmp_path / "data"
    shutil.copytree(SAMPLES / "ifeval", own / "ifeval")
    rows = (own / "ifeval" / "train.jsonl").read_text().splitlines()
    (own / "ifeval" / "train.jsonl").write_text("\n".join(reversed(rows)) + "\n")
    _audit(sim.url, tmp_path / "b", own, tmp_path / "reports")
    assert AuditReport.load(tmp_path / "b").sample_items == ["gpqa/gpqa_diamond.jsonl"]
