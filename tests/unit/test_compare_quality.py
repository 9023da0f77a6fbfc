"""Quality A/B from literal per-sample rows: pairing, flipped items, McNemar, gate consequence."""

from __future__ import annotations

import pytest

from harness.quality.compare import compare_benchmark, items, quality_differences
from harness.quality.report import BenchmarkResult, QualityReport
from harness.quality.stats import pass_probability

METRIC = "exact_match,custom-extract"


def row(
    doc: int, correct: object, answer: str, *, flt: str = "custom-extract"
) -> dict[str, object]:
    return {
        "task": "mmlu_pro_math",
        "doc_id": doc,
        "filter": flt,
        "prompt": f"q{doc}",
        "response": f"The answer is ({answer})",
        "extracted": answer,
        "target": "B",
        "correct": correct,
    }


def bench(score: float, n: int, *, passed: bool) -> BenchmarkResult:
    return BenchmarkResult(
        name="mmlu_pro",
        title="MMLU-Pro",
        task="mmlu_pro",
        metric=METRIC,
        threshold=0.6,
        score=score,
        passed=passed,
        n=n,
    )


def test_items_use_the_metric_filter_and_expand_lists():
    rows = [row(0, 1.0, "B"), row(0, 0.0, "C", flt="other"), row(1, 0.0, "A")]
    assert {k: c for k, (c, _) in items(rows, METRIC).items()} == {
        ("mmlu_pro_math", 0, None): True,
        ("mmlu_pro_math", 1, None): False,
    }
    ifeval = [{"task": "ifeval", "doc_id": 7, "filter": "none", "correct": [True, False]}]
    assert {k: c for k, (c, _) in items(ifeval, "inst_level_strict_acc,none").items()} == {
        ("ifeval", 7, 0): True,
        ("ifeval", 7, 1): False,
    }
    assert items([], METRIC) == {}


def test_compare_benchmark_flips_and_mcnemar():
    a = [row(0, 1.0, "B"), row(1, 1.0, "B"), row(2, 0.0, "C"), row(3, 1.0, "B"), row(4, 0.0, "D")]
    b = [row(0, 1.0, "B"), row(1, 0.0, "A"), row(2, 0.0, "C"), row(3, 0.0, "E"), row(4, 1.0, "B")]
    d = compare_benchmark(bench(0.6, 5, passed=True), bench(0.4, 5, passed=False), a, b)
    assert (d.both_right, d.both_wrong, d.b_only, d.a_only) == (1, 1, 1, 2)
    assert d.mcnemar_p == pytest.approx(1.0)  # 2 * (C(3,0) + C(3,1)) / 8 capped at 1
    assert [(f.doc_id, f.correct_a, f.correct_b, f.answer_a, f.answer_b) for f in d.flipped] == [
        (1, True, False, "B", "A"),
        (3, True, False, "B", "E"),
        (4, False, True, "D", "B"),
    ]
    assert d.diff == pytest.approx(-0.2)
    assert d.passed_b is False and d.threshold == 0.6
    assert d.pass_probability_b == pytest.approx(pass_probability(0.4, 5, 0.6))


def test_compare_benchmark_without_samples():
    d = compare_benchmark(bench(0.6, 5, passed=True), bench(0.7, 5, passed=True), [], [])
    assert d.mcnemar_p is None and d.n_pairs == 0 and "no per-sample file" in d.note


def test_unpaired_items_are_noted():
    d = compare_benchmark(
        bench(1.0, 1, passed=True),
        bench(1.0, 2, passed=True),
        [row(0, 1.0, "B")],
        [row(0, 1.0, "B"), row(9, 1.0, "B")],
    )
    assert d.n_pairs == 1 and "1 items scored in one run only" in d.note


def test_quality_differences():
    qa = QualityReport(limit=0.1, benchmarks=[bench(0.5, 5, passed=False)])
    qb = QualityReport(limit=0.2, benchmarks=[bench(0.5, 10, passed=False)])
    diffs = quality_differences(qa, qb, {}, {})
    assert diffs == ["quality limit: A 0.1, B 0.2", "mmlu_pro n: A 5, B 10"]
    other_prompt = [dict(row(0, 1.0, "B"), prompt="another text")]
    diffs = quality_differences(
        qa, qa, {"mmlu_pro": [row(0, 1.0, "B")]}, {"mmlu_pro": other_prompt}
    )
    assert diffs == ["mmlu_pro data: document mmlu_pro_math#0 has a different prompt in B"]
