"""compare's report holds one section per kind (schema 4): each kind's comparison returns
its own, the views draw them in the registry's order, and an older compare.json (per-kind
keys at the top) is migrated by each kind's record."""

from __future__ import annotations

import json

import pytest

from harness.compare.model import COMPARED, CompareReport
from harness.compare.views import sections
from harness.errors import ConfigError
from harness.latency.compare import LatencySection
from harness.paired.model import ScoreDiff
from harness.quality.compare import QualityDiff, QualitySection
from harness.registry import KINDS
from harness.throughput.compare import LevelDiff, ThroughputSection
from harness.view.model import Table
from harness.vlm.compare import VlmDiff, compare_vlm

SCORE = {
    "mode": "official",
    "score_a": 1.0,
    "score_b": 1.1,
    "diff": 0.1,
    "diff_pct": 10.0,
    "ci95": [0.05, 0.15],
    "noise": 0.02,
    "noise_source": "min-effect 2 %",
    "verdict": "higher",
}
BUCKET = {
    "mode": "official",
    "bucket": "short",
    "metric": "e2e",
    "n_a": 5,
    "n_b": 5,
    "median_a_ms": 100.0,
    "median_b_ms": 90.0,
    "diff_ms": -10.0,
    "diff_pct": -10.0,
    "ci95_ms": [-12.0, -8.0],
    "noise_ms": 2.0,
    "noise_source": "min-effect 2 %",
    "verdict": "faster",
}
LEVEL = {
    "concurrency": 1,
    "tok_s_a": 100.0,
    "tok_s_b": 120.0,
    "diff": 20.0,
    "diff_pct": 20.0,
    "ci95": [15.0, 25.0],
    "verdict": "higher",
}
BENCH = {
    "benchmark": "mmlu_pro",
    "title": "MMLU-Pro",
    "metric": "exact_match,custom-extract",
    "score_a": 0.7,
    "score_b": 0.71,
    "diff": 0.01,
    "n_pairs": 10,
    "both_right": 7,
    "both_wrong": 2,
    "b_only": 1,
    "a_only": 0,
    "mcnemar_p": 1.0,
    "threshold": 0.6,
    "passed_a": True,
    "passed_b": True,
    "pass_probability_b": 0.9,
    "n_b": 10,
}


def schema_3(**keys: object) -> dict[str, object]:
    return {
        "schema_version": 3,
        "kind": "compare",
        "run_a": "a",
        "run_b": "b",
        "profile": "p",
        "latency": [],
        "latency_scores": [],
        "quality": [],
        "throughput": [],
        "throughput_score": None,
        "vlm": None,
        **keys,
    }


def test_a_schema_3_file_becomes_one_section_per_kind_in_registry_order() -> None:
    vlm = compare_vlm([], []).model_dump(mode="json")
    old = schema_3(
        latency=[BUCKET],
        latency_scores=[SCORE],
        quality=[BENCH],
        throughput=[LEVEL],
        throughput_score=SCORE,
        vlm=vlm,
    )
    rep = CompareReport.from_json(json.dumps(old))
    assert rep.schema_version == 4
    assert list(rep.sections) == ["latency", "throughput", "quality", "vlm"]
    lat, tp = rep.section(LatencySection), rep.section(ThroughputSection)
    qual, v = rep.section(QualitySection), rep.section(VlmDiff)
    assert lat is not None and lat.buckets[0].verdict == "faster"
    assert lat.scores == [ScoreDiff.model_validate(SCORE)]
    assert tp is not None and tp.score == ScoreDiff.model_validate(SCORE)
    assert tp.levels == [LevelDiff.model_validate({**LEVEL, "noise": 0.0, "noise_source": ""})]
    assert qual is not None and qual.benchmarks == [QualityDiff.model_validate(BENCH)]
    assert v == VlmDiff.model_validate(vlm)
    # written back, the file has sections and no per-kind key at the top
    data = json.loads(rep.to_json())
    assert not {"latency", "latency_scores", "quality", "throughput", "vlm"} & set(data)
    assert CompareReport.from_json(rep.to_json()) == rep


def test_a_schema_3_file_with_nothing_compared_has_no_section() -> None:
    rep = CompareReport.from_json(json.dumps(schema_3(notes=["n"])))
    assert rep.sections == {} and rep.notes == ["n"]
    assert rep.section(LatencySection) is None


def test_a_section_of_an_unknown_kind_is_refused() -> None:
    data = {**schema_3(), "schema_version": 4, "sections": {"speed": {}}}
    for key in ("latency", "latency_scores", "quality", "throughput", "throughput_score", "vlm"):
        del data[key]
    with pytest.raises(ConfigError, match="sections of kinds compare does not read"):
        CompareReport.from_json(json.dumps(data))


def test_every_compared_kind_returns_its_own_section_type() -> None:
    assert [k.name for k in COMPARED] == [k.name for k in KINDS if k.compare is not None]
    types = {k.name: k.compare.section for k in COMPARED if k.compare is not None}
    assert types == {
        "latency": LatencySection,
        "throughput": ThroughputSection,
        "quality": QualitySection,
        "vlm": VlmDiff,
    }


def test_the_views_draw_the_sections_in_registry_order() -> None:
    rep = CompareReport(
        run_a="runs/a",
        run_b="runs/b",
        profile="p",
        sections={
            "quality": QualitySection.model_validate({"benchmarks": [BENCH]}),
            "throughput": ThroughputSection.model_validate({"levels": [LEVEL]}),
            "latency": LatencySection.model_validate({"buckets": [BUCKET]}),
        },
    )
    (sec,) = sections(rep)
    tables = [b.key for b in sec.blocks if isinstance(b, Table)]
    assert tables == ["compare-latency", "compare-throughput", "compare-quality"]
    assert sec.title == "Compare with a"
