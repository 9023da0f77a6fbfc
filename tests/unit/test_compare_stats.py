"""Pure A/B statistics with literal numbers: McNemar, bootstrap CIs (pass probability: test_quality_interval.py), verdicts."""

from __future__ import annotations

import pytest

from harness.paired.stats import (
    LevelSample,
    diff_of_medians_ci,
    score_diff_ci,
    verdict,
    weighted_throughput_diff_ci,
)
from harness.stats.binomial import mcnemar_exact
from harness.stats.distributions import normal_cdf


def test_mcnemar_exact_literal_values():
    # 5 discordant pairs all one way: 2 * (1/2)^5
    assert mcnemar_exact(5, 0) == pytest.approx(0.0625)
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    # 3 vs 1: 2 * (C(4,0) + C(4,1)) / 16 = 10/16
    assert mcnemar_exact(3, 1) == pytest.approx(0.625)
    # symmetric: capped at 1
    assert mcnemar_exact(2, 2) == 1.0
    # 10 vs 0: 2 / 1024
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)


def test_mcnemar_no_discordant_pairs_is_one():
    assert mcnemar_exact(0, 0) == 1.0


def test_normal_cdf():
    assert normal_cdf(0) == 0.5
    assert normal_cdf(1.959963984540054) == pytest.approx(0.975)


def test_diff_of_medians_ci_empty_and_single():
    assert diff_of_medians_ci([], [1.0]) is None
    assert diff_of_medians_ci([1.0], []) is None
    assert diff_of_medians_ci([10.0], [13.0]) == (3.0, 3.0)


def test_diff_of_medians_ci_separated_samples_exclude_zero_and_is_seeded():
    a = [30.0, 30.2, 30.4, 29.9, 30.1, 30.3, 30.0, 29.8]
    b = [x + 3.0 for x in a]
    ci = diff_of_medians_ci(a, b, seed=1)
    assert ci is not None and 2.5 < ci[0] <= 3.0 <= ci[1] < 3.5
    assert diff_of_medians_ci(a, b, seed=1) == ci


def test_score_diff_ci():
    assert score_diff_ci([], [], []) is None
    assert score_diff_ci([[1.0]], [[]], [10.0]) is None
    # one sample per bucket: the exact score difference, zero width
    lo, hi = score_diff_ci([[10.0], [20.0]], [[5.0], [20.0]], [100.0, 100.0])  # type: ignore[misc]
    assert lo == pytest.approx(5.0) and hi == pytest.approx(5.0)  # (20 + 5) / 2 - (10 + 5) / 2


def test_weighted_throughput_diff_ci():
    a = LevelSample(tok_s=100.0, tokens=[10.0, 10.0], seconds=[1.0, 1.0])
    b = LevelSample(tok_s=150.0, tokens=[10.0, 10.0], seconds=[1.0, 1.0])
    # identical requests: every replicate equals the measured value
    assert weighted_throughput_diff_ci([a], [b], [1.0]) == pytest.approx((50.0, 50.0))
    assert weighted_throughput_diff_ci([a, a], [b, a], [0.5, 0.5]) == pytest.approx((25.0, 25.0))
    assert weighted_throughput_diff_ci([], [], []) is None
    empty = LevelSample(tok_s=1.0, tokens=[], seconds=[])
    assert weighted_throughput_diff_ci([empty], [b], [1.0]) is None


@pytest.mark.parametrize(
    ("diff", "ci", "noise", "higher", "expected"),
    [
        (3.0, (1.0, 5.0), 0.0, False, "worse"),
        (-3.0, (-5.0, -1.0), 0.0, False, "better"),
        (3.0, (1.0, 5.0), 0.0, True, "better"),
        (3.0, (-1.0, 5.0), 0.0, False, "within noise"),  # CI includes 0
        (3.0, (1.0, 5.0), 4.0, False, "within noise"),  # below the between-run spread
        (None, None, 0.0, False, "no data"),
        (1.0, None, 0.0, False, "no data"),
    ],
)
def test_verdict(diff, ci, noise, higher, expected):
    assert verdict(diff, ci, noise=noise, higher_is_better=higher) == expected
