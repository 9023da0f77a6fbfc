"""The Paris correctness gate, both readings (README ≥ 87.5 %, score.py strict-match ≥ 0.85)."""

from __future__ import annotations

import pytest

from harness.gate.report import Verdict
from harness.gate.rules import GateInputs, judge
from harness.profiles import load_profile
from harness.quality.correctness import evaluate, gated_score
from harness.quality.gate_rules import correctness_outcomes, quality_metrics
from harness.quality.report import BenchmarkResult, QualityReport
from harness.throughput.gate_rules import score_zeroed
from harness.throughput.report import ThroughputReport
from tests.wire.grader_paris import score as grader_score

PARIS = load_profile("gpumode-paris")
RULES = PARIS.require_throughput().correctness_rules


def gsm(flexible: float | None, strict: float | None) -> dict[str, dict[str, float]]:
    m = {}
    if flexible is not None:
        m["exact_match,flexible-extract"] = flexible
    if strict is not None:
        m["exact_match,strict-match"] = strict
    return {"gsm8k": m}


@pytest.mark.parametrize(
    ("flexible", "strict", "failed", "zero"),
    [
        (0.915, 0.910, [], False),  # the reference vLLM run passes both
        (0.880, 0.840, ["score.py"], True),  # README passes, score.py fails: score 0
        (0.870, 0.860, ["README"], False),  # score.py passes (score kept), README fails
        (0.800, 0.800, ["README", "score.py"], True),
        (0.875, 0.85, [], False),  # both thresholds are inclusive, on the raw value
    ],
)
def test_both_rules_are_evaluated_and_named(flexible, strict, failed, zero):
    v = evaluate(RULES, gsm(flexible, strict))
    assert [o.rule.name for o in v.failed] == failed
    assert v.passed is (not failed)
    assert v.zeroes_score is zero
    assert gated_score(1234.5, v) == (0.0 if zero else 1234.5)
    # score.py's own arithmetic on the same number agrees
    assert (
        grader_score([{"concurrency": 1, "throughput_tok_per_sec": 1234.5}], strict) == 0
    ) is zero


def test_a_missing_metric_is_not_measured_not_passed():
    v = evaluate(RULES, gsm(0.9, None))
    assert v.passed is None and [o.rule.name for o in v.missing] == ["score.py"]
    assert "not measured" in v.missing[0].line()


def quality(flexible: float, strict: float) -> QualityReport:
    b = BenchmarkResult(
        name="gsm8k",
        title="GSM8K",
        task="gsm8k_cot",
        metric="exact_match,flexible-extract",
        threshold=0.875,
        score=flexible,
        n=200,
        other_metrics={"exact_match,strict-match": strict},
    )
    return QualityReport(benchmarks=[b])


def test_gate_fails_naming_the_rule_and_zeroes_the_score():
    tp = ThroughputReport(
        url="u",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=True,
        score=5000.0,
        score_complete=True,
    )
    inputs = GateInputs.of(PARIS, quality(0.90, 0.84), tp)
    metrics = quality_metrics(quality(0.90, 0.84))
    # each reading is the quality report's line; the zeroed score is the throughput report's
    reasons = correctness_outcomes(PARIS.throughput, metrics)
    reasons += score_zeroed(PARIS.throughput, metrics, tp.score)
    texts = [r.text for r in reasons if r.blocking]
    assert len(texts) == 2
    assert texts[0].startswith("correctness gate FAILED: score.py: gsm8k exact_match,strict-match")
    assert texts[1].startswith("the grader's score is 0: score.py failed (harness measured 5,000)")
    verdict, judged, _ = judge(inputs)
    assert verdict is Verdict.FAIL
    assert set(texts) <= {r.text for r in judged if r.blocking}  # the gate says both
    ok = quality_metrics(quality(0.9, 0.9))
    assert [r.blocking for r in correctness_outcomes(PARIS.throughput, ok)] == [False, False]
    assert score_zeroed(PARIS.throughput, ok, None) == []
