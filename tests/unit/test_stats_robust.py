"""harness/stats/robust.py, binomial.py, distributions.py and the one-z Wilson interval,
on literal numbers (the estimators the audit's timing rules use, under names that say
which Hodges–Lehmann each is)."""

import math

import numpy as np
import pytest

from harness.stats.binomial import cdf_and_sf, cdf_half, pmf, upper_tail
from harness.stats.distributions import Z95, normal_cdf
from harness.stats.intervals import bootstrap_ci, percentile_interval, wilson, wilson_interval
from harness.stats.robust import (
    LENGTH_MATCH,
    MAD_TO_SD,
    NOISE_LIMIT_PAIR,
    NOISE_LIMIT_REQUEST,
    hodges_lehmann_ratio,
    hodges_lehmann_walsh,
    mad_sigma,
    median,
)


def test_median_or_none() -> None:
    assert median([]) is None
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0]) == 2.5
    assert isinstance(median([1, 2, 3]), float)


def test_mad_sigma_is_1_4826_times_the_mad_and_ignores_one_stall() -> None:
    assert mad_sigma([]) is None and mad_sigma([5.0]) is None
    assert mad_sigma([1.0, 3.0]) == pytest.approx(MAD_TO_SD)  # deviations 1, 1
    assert mad_sigma([1.0, 2.0, 3.0, 4.0, 100.0]) == pytest.approx(1.4826)  # 100 moves nothing
    assert mad_sigma([2.0, 2.0, 2.0]) == 0.0


def test_hodges_lehmann_walsh_is_the_median_of_walsh_averages() -> None:
    assert hodges_lehmann_walsh([]) is None
    assert hodges_lehmann_walsh([4.0]) == 4.0
    # pairs i <= j of [1, 2, 10]: 1, 1.5, 5.5, 2, 6, 10 -> median (2 + 5.5) / 2
    assert hodges_lehmann_walsh([1.0, 2.0, 10.0]) == 3.75


def test_hodges_lehmann_ratio_is_the_median_of_every_pairs_ratio() -> None:
    assert hodges_lehmann_ratio([], [1.0]) is None
    assert hodges_lehmann_ratio([1.0], [0.0]) is None  # a zero denominator is skipped
    # ratios of [2, 4] over [1, 2]: 2, 1, 4, 2 -> median 2
    assert hodges_lehmann_ratio([2.0, 4.0], [1.0, 2.0, 0.0]) == 2.0
    # one stalled request barely moves it
    assert hodges_lehmann_ratio([1.0, 1.0, 1.0, 50.0], [1.0, 1.0, 1.0]) == 1.0


def test_the_audit_limits_are_named_and_the_pair_limit_is_about_root_two_wider() -> None:
    assert LENGTH_MATCH == 0.25
    assert NOISE_LIMIT_REQUEST == 0.10
    assert NOISE_LIMIT_PAIR == 0.15
    assert pytest.approx(NOISE_LIMIT_REQUEST * math.sqrt(2), abs=0.01) == NOISE_LIMIT_PAIR


def test_binomial_tails_agree_with_each_other() -> None:
    assert cdf_half(10, 1) == 11 / 1024
    assert upper_tail(3, 4, 0.2) == pytest.approx(4 * 0.2**3 * 0.8 + 0.2**4)
    assert pmf(4, 0.5) == pytest.approx([1 / 16, 4 / 16, 6 / 16, 4 / 16, 1 / 16])
    below, above = cdf_and_sf(10, 0.5)
    assert below[1] == pytest.approx(cdf_half(10, 1))
    assert above[7] == pytest.approx(upper_tail(7, 10, 0.5))


def test_normal_cdf_and_z95() -> None:
    assert normal_cdf(0) == 0.5
    assert normal_cdf(Z95) == pytest.approx(0.975, abs=1e-15)


def test_wilson_has_one_z_the_exact_95_quantile() -> None:
    # 0 of 40: [0, 8.76 %]; the rate form and the count form are one function
    assert wilson_interval(0, 40) == wilson(0.0, 40)
    lo, hi = wilson_interval(0, 40)  # type: ignore[misc]
    assert lo == 0.0 and hi == pytest.approx(Z95**2 / (40 + Z95**2))
    assert wilson(1.0, 1) == pytest.approx((1 / (1 + Z95**2), 1.0))  # 1 of 1: 0.207 to 1
    assert wilson(0.5, 0) is None and wilson_interval(0, 0) is None


def test_bootstrap_ci_and_percentile_interval() -> None:
    assert bootstrap_ci([], np.mean) is None
    assert bootstrap_ci([3.0], np.median) == (3.0, 3.0)
    assert percentile_interval(np.arange(101.0), 0.9) == pytest.approx((5.0, 95.0))
    lo, hi = bootstrap_ci([1.0, 2.0, 3.0, 4.0], np.mean, seed=1)  # type: ignore[misc]
    assert 1.0 <= lo <= 2.5 <= hi <= 4.0
