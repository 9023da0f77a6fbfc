"""Ledger lines and gate.json written before the kinds' summary facets still read, and show
the same cells: the kinds' fields are flat keys of the line as before, each kind's facet
(harness/view/summary.py) reading its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.gate.report import GateReport
from harness.latency.ledger import LatencyLedger
from harness.quality.summary import QualityLedger
from harness.report.entry import LedgerEntry
from harness.report.sections import summary
from harness.report.table import ledger_table
from harness.view.model import Table

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "ledger_lines.json"
OLD: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
LINES: list[str] = OLD["lines"]


def _entries() -> list[LedgerEntry]:
    return [LedgerEntry.model_validate_json(line) for line in LINES]


def test_every_old_line_reads_and_shows_the_same_ledger_cells() -> None:
    table = ledger_table(_entries(), "awq")
    assert [c.header for c in table.columns] == OLD["headers"]
    assert [[c.text for c in r.cells] for r in table.rows] == OLD["rows"]


def test_every_old_line_shows_the_same_run_summary() -> None:
    for e in _entries():
        block = summary(e).blocks[0]
        assert isinstance(block, Table)
        assert [[c.text for c in r.cells] for r in block.rows] == OLD["summaries"][e.id], e.id


def test_a_current_line_is_written_back_with_the_same_content() -> None:
    current = [line for line in LINES if json.loads(line)["schema_version"] == 3]
    assert len(current) == 8  # one per kind's folder, the gated run and a strict-only run
    for line in current:
        assert json.loads(LedgerEntry.model_validate_json(line).to_line()) == json.loads(line)


def test_older_lines_keep_their_fields() -> None:
    by_id = {e.id: e for e in _entries()}
    for old in ("awq-v2", "awq-v1"):
        e = by_id[old]
        assert e.score == 2.0 and e.score_mode == "official"
        assert [b.name for b in e.part(LatencyLedger).buckets] == ["short", "medium", "long"]
        assert [q.passed for q in e.part(QualityLedger).quality] == [True, False]
        assert e.part(LatencyLedger).procedure is None
        assert [(f.source, f.text) for f in e.flags] == [("gate", "early-stop: 3/50")]
    line = json.loads(by_id["awq-v2"].to_line())
    raw = json.loads(next(x for x in LINES if '"id":"awq-v2"' in x))
    # every key it had, the same value (the server record gains engine and version, None)
    assert {k: line[k] for k in raw if k != "server"} == {k: raw[k] for k in raw if k != "server"}
    assert {k: line["server"][k] for k in raw["server"]} == raw["server"]


def test_a_line_keeps_the_kinds_keys_flat_after_complete() -> None:
    keys = list(json.loads(LedgerEntry(id="r", time="t", score=1.5).to_line()))
    start = keys.index("complete") + 1
    kinds = keys[start : keys.index("verdict")]
    assert sorted(kinds) == sorted(
        [
            "checks_total",
            "checks_failed",
            "buckets",
            "score",
            "score_ci95",
            "score_mode",
            "procedure",
            "strict_score",
            "throughput_score",
            "quality",
            "quality_limit",
            "vlm",
        ]
    )


GATE_V5 = {
    "kind": "gate",
    "schema_version": 5,
    "complete": True,
    "provenance": {"profile": "efficient-qwen", "started_at": "2026-02-01T10:00:00+00:00"},
    "verdict": "PASS",
    "strict": False,
    "reasons": [],
    "flags": [],
    "score": 2.0,
    "score_name": "mean speedup",
    "grader_score": 2.0,
    "bucket_speedups": {"short": 2.0, "medium": None},
    "quality": {"mmlu_pro": 0.71},
    "reports": ["latency", "quality"],
    "skipped": [],
    "folder": "r",
    "image_id": None,
}


def test_gate_json_keeps_each_kinds_figures_as_its_own_keys() -> None:
    rep = GateReport.model_validate(GATE_V5)
    assert rep.figures == {
        "bucket_speedups": {"short": 2.0, "medium": None},
        "quality": {"mmlu_pro": 0.71},
    }
    back = json.loads(rep.to_json())
    assert {k: back[k] for k in GATE_V5 if k != "provenance"} == {
        k: v for k, v in GATE_V5.items() if k != "provenance"
    }
    keys = list(back)
    assert keys[keys.index("grader_score") + 1 : keys.index("grader_score") + 3] == [
        "bucket_speedups",
        "quality",
    ]
    # a verdict without those reports: the same keys, empty (as before)
    bare = json.loads(GateReport.model_validate({"verdict": "FAIL"}).to_json())
    assert (bare["bucket_speedups"], bare["quality"]) == ({}, {})
