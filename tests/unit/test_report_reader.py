"""The one report reader: older schemas migrated, newer refused, gate and report in agreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import EXIT_INCOMPLETE, EXIT_USAGE, ConfigError
from harness.gate.judge import judge_folder, read_inputs
from harness.gate.report import GateReport
from harness.image.rules import RuleResult
from harness.latency.report import LatencyReport
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.quality.report import QualityReport
from harness.report.folder import read_run
from harness.report_base import load_report
from harness.risk import FlagKind
from harness.throughput.report import ThroughputReport
from tests.unit.test_gate_rules import package_report
from tests.unit.test_report_data import make_run, write_quality

T0 = "2026-01-01T10:00:00+00:00"

# latency.json as harness wrote it at schema 1: flags were strings, gaps had no cause_kind
LATENCY_V1: dict[str, Any] = {
    "kind": "latency",
    "schema_version": 1,
    "complete": True,
    "provenance": {"harness_version": "0.1.0", "profile": "efficient-qwen", "started_at": T0},
    "mode": "both",
    "settings": {"runs": 50, "warmup": 5, "buckets": ["short"]},
    "official": [],
    "strict": [],
    "score": None,
    "gaps": [
        {
            "bucket": "short",
            "official_median_ms": 100.0,
            "strict_median_ms": 400.0,
            "official_speedup": 25.82,
            "strict_speedup": 6.455,
            "share_of_official_speedup": 0.75,
            "cause": "prefix cache: the official prompt is the same text every time",
        }
    ],
    "flags": [
        "early-stop: 3/50 official short responses stopped before max_tokens=128",
        "failures: 2 timed official short requests failed (timeout×2)",
        "something a later harness said",
    ],
    "requests": [],
}

THROUGHPUT_V1: dict[str, Any] = {
    "kind": "throughput",
    "schema_version": 1,
    "provenance": {"harness_version": "0.1.0"},
    "url": "http://127.0.0.1:8080",
    "endpoint": "/v1/chat/completions",
    "model": "m",
    "mode": "official",
    "official": True,
    "levels": [
        {
            "concurrency": 1,
            "weight": 1.0,
            "n_requests": 2,
            "n_ok": 2,
            "n_failed": 0,
            "wall_s": 1.0,
            "prompt_tokens": 10,
            "output_tokens": 10,
            "server_output_tokens": 10,
            "tok_s": 20.0,
            "output_tok_s": 10.0,
            "weighted": 20.0,
            "usage_mismatches": 0,
            "usage_missing": 0,
            "think_tags": 0,
            # schema 1's throughput distribution: no median, p95, stdev or ci95
            "e2e_ms": {
                "n": 2,
                "mean": 5.0,
                "p50": 5.0,
                "p90": 6.0,
                "p99": 6.0,
                "min": 4.0,
                "max": 6.0,
            },
        }
    ],
    "score": 20.0,
    "score_complete": True,
    "flags": ["c=1: 1 answers carry no usage.completion_tokens"],
}

GATE_V1: dict[str, Any] = {
    "kind": "gate",
    "schema_version": 1,
    "provenance": {"harness_version": "0.1.0"},
    "verdict": "PASS",
    "reasons": [{"source": "latency", "text": "latency score 2.00×"}],
    "flags": ["latency: early-stop: 3/50 official short responses"],
}


QUALITY_V1: dict[str, Any] = {
    "kind": "quality",
    "schema_version": 1,
    "provenance": {"harness_version": "0.1.0"},
    "limit": 0.1,
    "benchmarks": [
        {
            "name": "mmlu_pro",
            "title": "MMLU-Pro",
            "task": "mmlu_pro",
            "metric": "exact_match,custom-extract",
            "threshold": 0.621,
            "score": 0.7,
            "rounded_score": 0.7,
            "passed": True,
            "n": 1209,
        }
    ],
    "passed": True,
}


def _write(folder: Path, name: str, data: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def test_a_schema_1_latency_report_is_migrated(tmp_path: Path) -> None:
    _write(tmp_path, "latency.json", LATENCY_V1)
    rep = load_report(tmp_path, LatencyReport)
    assert rep is not None and rep.schema_version == LatencyReport.SCHEMA_VERSION == 4
    assert [(f.kind, f.source) for f in rep.flags] == [
        (FlagKind.EARLY_STOP, "latency"),
        (FlagKind.REQUEST_FAILURES, "latency"),
        (FlagKind.OTHER, "latency"),
    ]
    assert rep.flags[2].text == "something a later harness said"
    assert rep.gaps[0].cause_kind == "prefix_cache"
    assert rep.provenance.harness_version == "0.1.0"


def test_a_schema_2_latency_report_gains_usage_checks_and_notes(tmp_path: Path) -> None:
    v2 = {**LATENCY_V1, "schema_version": 2, "flags": [], "gaps": []}
    _write(tmp_path, "latency.json", v2)
    rep = load_report(tmp_path, LatencyReport)
    assert rep is not None and rep.schema_version == 4
    assert rep.usage_checks == [] and rep.notes == []


def test_a_schema_1_repeats_report_records_one_seed_per_repeat(tmp_path: Path) -> None:
    from harness.latency.repeats import RepeatsReport

    v1 = {
        "kind": "latency-repeats",
        "schema_version": 1,
        "provenance": {"harness_version": "0.1.0", "seed": 0},
        "repeats": 2,
    }
    _write(tmp_path, "latency_repeats.json", v1)
    rep = load_report(tmp_path, RepeatsReport)
    assert rep is not None and rep.schema_version == RepeatsReport.SCHEMA_VERSION == 2
    assert rep.seed == 0 and rep.seeds == [0, 0]


def test_schema_1_throughput_and_gate_reports_are_migrated(tmp_path: Path) -> None:
    _write(tmp_path, "throughput.json", THROUGHPUT_V1)
    _write(tmp_path, "gate.json", GATE_V1)
    tp = load_report(tmp_path, ThroughputReport)
    assert tp is not None and tp.score == 20.0
    assert tp.levels[0].e2e_ms.p99 == 6.0 and tp.levels[0].e2e_ms.median is None
    assert [(f.kind, f.text) for f in tp.flags] == [
        (FlagKind.OTHER, "c=1: 1 answers carry no usage.completion_tokens")
    ]
    gate = load_report(tmp_path, GateReport)
    assert gate is not None and gate.verdict == "PASS"
    assert [f.text for f in gate.flags] == ["latency: early-stop: 3/50 official short responses"]


def test_a_saved_report_reads_back_unchanged(tmp_path: Path) -> None:
    folder = make_run(tmp_path, "r", started_at=T0, medians={"short": 1291.0})
    data = json.loads((folder / "latency.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == LatencyReport.SCHEMA_VERSION
    rep = load_report(folder, LatencyReport)
    assert rep is not None and json.loads(rep.to_json()) == data


def test_absent_is_none_and_wrong_kind_is_refused(tmp_path: Path) -> None:
    assert load_report(tmp_path, LatencyReport) is None
    _write(tmp_path, "latency.json", {**LATENCY_V1, "kind": "quality"})
    with pytest.raises(ConfigError, match="a 'quality' report, not 'latency'"):
        load_report(tmp_path, LatencyReport)


def test_a_newer_schema_is_refused_in_one_line(tmp_path: Path) -> None:
    newer = {**LATENCY_V1, "schema_version": 7}
    newer["provenance"] = {**LATENCY_V1["provenance"], "harness_version": "3.1.0"}
    _write(tmp_path, "latency.json", newer)
    with pytest.raises(ConfigError) as err:
        load_report(tmp_path, LatencyReport)
    assert err.value.exit_code == EXIT_USAGE
    line = err.value.one_line()
    assert "\n" not in line
    assert line.startswith("latency.json: schema_version 7 (written by harness 3.1.0)")
    assert line.endswith("read it with harness 3.1.0 or newer")


def test_gate_on_a_folder_with_a_newer_report_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_run(tmp_path, "r", started_at=T0, medians={"short": 1291.0}, verdict=None)
    data = json.loads((folder / "latency.json").read_text(encoding="utf-8"))
    data["schema_version"] = 99
    (folder / "latency.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["gate", str(folder), "--json"]) == EXIT_INCOMPLETE
    gate = json.loads(capsys.readouterr().out)
    assert gate["verdict"] == "INCOMPLETE"
    assert any(
        r["text"].startswith("latency.json: schema_version 99") and r["incomplete"]
        for r in gate["reasons"]
    )


def test_gate_and_report_read_the_same_reports(tmp_path: Path) -> None:
    folder = make_run(
        tmp_path,
        "r",
        started_at=T0,
        medians={"short": 1291.0, "medium": 2720.5, "long": 3288.0},
        flags=("early-stop: 3/50 official short responses stopped before max_tokens",),
    )
    write_quality(folder, {"mmlu_pro": (0.71, 0.621, 120)}, started_at=T0)
    inputs, problems = read_inputs(folder, load_profile("efficient-qwen"))
    run = read_run(folder)
    assert problems == [] and run.problems == []
    assert inputs.get(LatencyReport) == run.get(LatencyReport)
    assert inputs.reports["quality"] == run.reports["quality.json"]
    assert sorted(inputs.reports) == ["latency", "quality"]
    assert {f"{name}.json" for name in inputs.reports} == set(run.reports) - {"gate.json"}


def test_gate_reads_package_json_typed(tmp_path: Path) -> None:
    rules = [RuleResult(rule="size", status="fail", detail="21 GB is over 20 GB")]
    package_report(rules, passed=False).save(tmp_path)
    gate = judge_folder(tmp_path, load_profile("efficient-qwen"), Provenance(), image=True)
    assert gate.verdict == "FAIL" and "package" in gate.reports
    assert [r.text for r in gate.reasons if r.blocking] == [
        "package rule size: 21 GB is over 20 GB"
    ]


def test_gate_on_a_corrupt_report_says_so_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_run(tmp_path, "r", started_at=T0, medians={"short": 1291.0}, verdict=None)
    (folder / "latency.json").write_text('{"kind": "latency", ', encoding="utf-8")
    assert main(["gate", str(folder), "--json"]) == EXIT_INCOMPLETE
    texts = [r["text"] for r in json.loads(capsys.readouterr().out)["reasons"]]
    about = [t for t in texts if "latency.json" in t]
    assert len(about) == 1 and about[0].startswith("latency.json: not valid JSON")


def test_compare_names_the_side_whose_report_is_corrupt(tmp_path: Path) -> None:
    from harness.compare.core import CompareConfig, compare_runs

    a = make_run(tmp_path, "a", started_at=T0, medians={"short": 1291.0}, verdict=None)
    b = make_run(tmp_path, "b", started_at=T0, medians={"short": 1291.0}, verdict=None)
    (b / "latency.json").write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        compare_runs(CompareConfig(run_a=a, run_b=b))
    assert err.value.one_line().startswith(f"RUN_B {b}: latency.json: not valid JSON")
    with pytest.raises(ConfigError) as err:
        compare_runs(CompareConfig(run_a=b, run_b=a))
    assert err.value.one_line().startswith(f"RUN_A {b}: latency.json: not valid JSON")


def test_a_schema_1_quality_report_reads_as_a_full_run(tmp_path: Path) -> None:
    _write(tmp_path, "quality.json", QUALITY_V1)
    rep = load_report(tmp_path, QualityReport)
    assert rep is not None and rep.schema_version == QualityReport.SCHEMA_VERSION == 2
    assert rep.decide_seed is None and rep.benchmarks[0].decide is None
    assert rep.benchmarks[0].passed and rep.benchmarks[0].n == 1209
