"""Piped output shows every cell whole (issue 27, item 16): no terminal and no COLUMNS →
each table as wide as its cells; COLUMNS honoured; a narrow width folds cells, never cuts
a figure or a verdict with an ellipsis ('20.…', 'INCOMPLE…')."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.provenance import Provenance
from harness.quality.report import BenchmarkResult, QualityReport
from harness.throughput.report import ThroughputReport
from tests.fixtures.wrong_invocation import run_harness

pytestmark = pytest.mark.timeout(120)

NAME = "paris-fp8-speculative-decoding-run"
NOTE = "switched the MoE kernels to a grouped GEMM and turned on fp8 KV cache for all layers"


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """A reports folder whose ledger has one Paris run with a long name and note."""
    reports = tmp_path / "reports"
    run = reports / "run1"
    prov = Provenance(profile="gpumode-paris")
    ThroughputReport(
        url="http://127.0.0.1:8110",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=True,
        score=4342144.24,
        score_complete=True,
        provenance=prov,
    ).save(run)
    gsm8k = BenchmarkResult(
        name="gsm8k",
        title="GSM8K",
        task="gsm8k_cot",
        metric="exact_match,flexible-extract",
        threshold=0.875,
        score=0.1,
        n=200,
        other_metrics={"exact_match,strict-match": 0.1},
    )
    QualityReport(benchmarks=[gsm8k], provenance=prov).save(run)
    gate = run_harness(["gate", str(run), "--name", NAME, "--note", NOTE], reports=reports)
    assert gate.rc == 1, gate.stderr  # FAIL: the GSM8K gate
    return reports


def test_piped_ledger_shows_every_cell_whole(ledger: Path) -> None:
    out = run_harness(["report", "--no-html"], reports=ledger)
    assert out.rc == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if NAME in line)
    for cell in (NAME, NOTE, "FAIL", "4,342,144", "0.10"):
        assert cell in row, out.stdout
    assert "…" not in out.stdout
    assert max(len(line) for line in out.stdout.splitlines()) > 120  # wider than the old cap


def test_piped_gate_headline_is_whole(ledger: Path) -> None:
    out = run_harness(["gate", str(ledger / "run1")], reports=ledger)
    assert out.rc == 1
    assert "FAIL  score 0 (weighted tok/s: the grader's" in out.stdout
    assert "measured 4,342,144)" in out.stdout  # the score in its one format (issue 47, item 2)


@pytest.mark.parametrize("columns", [60, 90, 200])
def test_columns_is_honoured_and_narrow_cells_fold(ledger: Path, columns: int) -> None:
    out = run_harness(["report", "--no-html"], reports=ledger, env={"COLUMNS": str(columns)})
    assert out.rc == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= columns, out.stdout
    assert "…" not in out.stdout
    assert "FAIL" in out.stdout  # a verdict is never shortened
    if columns >= 180:  # the whole row fits: one line, every cell whole
        row = next(line for line in lines if NAME in line)
        assert NOTE in row and "4,342,144" in row
