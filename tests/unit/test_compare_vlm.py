"""VLM A/B from literal per-sample records paired by question_id."""

from __future__ import annotations

import pytest

from harness.paired.stats import paired_mean_diff_ci
from harness.vlm.compare import compare_vlm
from harness.vlm.report import VlmSample


def sample(qid: int, ttft: float | None, tok_s: float, acc: float, pred: str) -> VlmSample:
    return VlmSample(
        question_id=qid,
        index=qid,
        ttft_ms=ttft,
        tok_s=tok_s,
        counted=ttft is not None,
        accuracy_containment=acc,
        prediction=pred,
        answers=["cat"],
    )


def test_paired_mean_diff_ci():
    assert paired_mean_diff_ci([]) is None
    assert paired_mean_diff_ci([2.5]) == (2.5, 2.5)
    assert paired_mean_diff_ci([1.0, 1.0, 1.0]) == (1.0, 1.0)


def test_compare_vlm_pairs_by_question_id():
    a = [
        sample(1, 80.0, 50.0, 1.0, "a cat"),
        sample(2, 90.0, 50.0, 0.0, "a dog"),
        sample(3, 100.0, 50.0, 1.0, "cat"),
        sample(4, None, 0.0, 0.0, ""),
    ]
    # B in another order, 10 ms slower on every counted sample, question 2 now right
    b = [
        sample(3, 110.0, 55.0, 1.0, "cat"),
        sample(1, 90.0, 55.0, 1.0, "cat"),
        sample(2, 100.0, 55.0, 1.0, "the cat"),
        sample(5, 70.0, 60.0, 1.0, "cat"),
    ]
    d = compare_vlm(a, b)
    assert d.n_pairs == 3 and d.unpaired == 2  # 4 only in A, 5 only in B
    assert d.ttft.n_pairs == 3 and d.ttft.diff == pytest.approx(10.0)
    assert d.ttft.ci95 == pytest.approx((10.0, 10.0)) and d.ttft.verdict == "slower"
    assert d.tok_s.diff == pytest.approx(5.0) and d.tok_s.verdict == "higher"
    assert (d.b_only, d.a_only) == (1, 0) and d.mcnemar_p == pytest.approx(1.0)
    assert [(f.question_id, f.prediction_a, f.prediction_b) for f in d.flipped] == [
        (2, "a dog", "the cat")
    ]


def test_compare_vlm_empty():
    d = compare_vlm([], [])
    assert d.n_pairs == 0 and d.ttft.verdict == "no data" and d.mcnemar_p is None
