"""The one sampling interval of a quality score (gate line, console, compare's P(pass)):
Wilson's score interval and the score test it inverts, with literal numbers."""

from __future__ import annotations

import pytest

from harness.quality.stats import ScoreInterval, pass_probability, score_interval


def test_one_document_right_is_not_a_certainty():
    # 1 of 1 right: the old "±0.000 sampling error at n=1"
    ci = score_interval(1.0, 1)
    assert ci is not None
    assert ci.low == pytest.approx(0.20654931, abs=1e-8)
    assert ci.high == 1.0
    assert ci.text() == "95 % interval 0.207–1.000 at n=1"


def test_one_document_wrong():
    ci = score_interval(0.0, 1)
    assert ci == ScoreInterval(0.0, pytest.approx(0.79345069, abs=1e-8), 1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("score", "n", "low", "high"),
    [
        (0.0, 40, 0.0, 0.08762160),  # p = 0: still an upper bound above 0
        (1.0, 14, 0.78468920, 1.0),  # p = 1
        (0.5, 100, 0.40383153, 0.59616847),
        (0.3571, 14, 0.16341830, 0.61231753),  # the demo's MMLU-Pro
    ],
)
def test_wilson_literal_values(score, n, low, high):
    ci = score_interval(score, n)
    assert ci is not None
    assert ci.low == pytest.approx(low, abs=1e-7)
    assert ci.high == pytest.approx(high, abs=1e-7)
    assert 0.0 <= ci.low <= score <= ci.high <= 1.0


def test_no_interval_without_documents_or_score():
    assert score_interval(None, 10) is None
    assert score_interval(0.5, 0) is None


def test_pass_probability_literal_values():
    # 1 of 1 right against IFEval's 0.814: (1 − 0.814) / √(0.814·0.186) = 0.478 → 0.684
    assert pass_probability(1.0, 1, 0.814) == pytest.approx(0.68368131, abs=1e-7)
    assert pass_probability(0.0, 1, 0.63) == pytest.approx(0.09596745, abs=1e-7)
    assert pass_probability(0.7, 100, 0.621) == pytest.approx(0.94828019, abs=1e-7)
    assert pass_probability(0.621, 50, 0.621) == pytest.approx(0.5)  # on the threshold
    assert pass_probability(0.4, 5, 0.6) == pytest.approx(0.18065521, abs=1e-7)


def test_pass_probability_at_degenerate_thresholds_and_empty():
    assert pass_probability(0.0, 3, 0.0) == 1.0
    assert pass_probability(0.9, 3, 1.0) == 0.0
    assert pass_probability(1.0, 3, 1.0) == 1.0
    assert pass_probability(None, 10, 0.5) is None
    assert pass_probability(0.5, 0, 0.5) is None


@pytest.mark.parametrize(("k", "n"), [(1, 1), (9, 14), (12, 14), (80, 100), (1100, 1200)])
def test_pass_probability_reads_the_same_test_as_the_interval(k, n):
    """P(pass) is 0.975 exactly where the interval's lower end meets the threshold."""
    ci = score_interval(k / n, n)
    assert ci is not None and ci.low > 0
    assert pass_probability(k / n, n, ci.low) == pytest.approx(0.975, abs=1e-9)
