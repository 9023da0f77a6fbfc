"""harness/stats/tails.py against MLPerf LoadGen's figures (its early-stopping rule)."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from harness.stats.tails import (
    bound_floor,
    check_bound,
    claim,
    claims,
    estimate_floor,
    min_passing,
    over_allowed,
    unrecorded,
)


def binom_cdf(t: int, n: int, q: Fraction) -> Fraction:
    return sum((comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(t + 1)), Fraction(0))


@pytest.mark.parametrize(
    ("p", "estimate", "bound"), [(0.90, 64, 44), (0.95, 130, 90), (0.99, 662, 459)]
)
def test_floors_are_loadgens(p: float, estimate: int, bound: int) -> None:
    assert estimate_floor(p) == estimate
    assert bound_floor(p) == bound


def test_loadgen_discards_172_of_2048_for_p90() -> None:
    xs = [float(i) for i in range(2048)]
    c = claim(xs, 0.90)
    assert c.sufficient and c.discarded == 172
    assert c.estimate == 2048 - 173  # the 173rd largest: 172 set aside, then the estimate


@pytest.mark.parametrize("n", [1, 10, 43, 44, 63, 64, 100, 300])
def test_over_allowed_is_the_exact_binomial_rule(n: int) -> None:
    q = Fraction(1, 10)
    t = over_allowed(n, 0.90)
    if t >= 0:
        assert binom_cdf(t, n, q) <= Fraction(1, 100)
    assert binom_cdf(t + 1, n, q) > Fraction(1, 100)


def test_min_passing_is_loadgens_h() -> None:
    assert min_passing(0, 0.90) == 44
    assert min_passing(1, 0.90) == 63
    for t in (2, 5, 20):
        h = min_passing(t, 0.99)
        assert over_allowed(h + t, 0.99) >= t > over_allowed(h + t - 1, 0.99)


def test_below_the_floor_no_number() -> None:
    xs = [float(i) for i in range(50)]
    c = claim(xs, 0.99)
    assert not c.sufficient and c.estimate is None and c.min_samples == 662
    assert c.text() == "not enough samples (50 of 662 needed)"
    assert claim([], 0.9).n == 0 and not claim([], 0.9).sufficient
    assert not claim([5.0], 0.9).sufficient


def test_at_the_floor_the_largest_sample() -> None:
    xs = [float(i) for i in range(64)]
    c = claim(xs, 0.90)
    assert c.sufficient and c.discarded == 0 and c.estimate == 63.0
    assert c.text() == "≤ 63.0 ms at 99%"


def test_claims_keys_and_unrecorded() -> None:
    assert set(claims([1.0] * 700)) == {"p90", "p95", "p99"}
    old = unrecorded(700, 0.99)
    assert old.sufficient and old.estimate is None and old.text() == "estimate not recorded"
    assert not unrecorded(50, 0.99).sufficient


def test_fixed_bound_needs_459_for_p99() -> None:
    under = [1.0] * 458
    c = check_bound(under, 0.99, 800.0)
    assert not c.met and c.allowed == -1
    assert c.why == "p99 ≤ 800 needs ≥ 459 samples with none over; 458 measured"
    c = check_bound([*under, 1.0], 0.99, 800.0)
    assert c.met and c.over == 0
    assert not check_bound([1.0] * 458 + [900.0], 0.99, 800.0).met


def test_fixed_bound_some_over() -> None:
    xs = [1.0] * 2040 + [900.0] * 8  # p90 with 8 over of 2048: far within the 173 allowed
    assert check_bound(xs, 0.90, 800.0).met
    many = [1.0] * 1800 + [900.0] * 248  # 12 % over: cannot show p90 under the bound
    c = check_bound(many, 0.90, 800.0)
    assert not c.met and "248 of 2048 samples over it" in c.why
    assert check_bound([float("nan")] * 50, 0.90, 800.0).over == 50  # a failure counts over


def test_p99_of_40000_is_the_353rd_largest() -> None:
    # mlcommons/endpoints' early-stopping design note: n 40,000, its "discarded" 353
    # is t, the estimate's rank from the top; LoadGen's message says "discard t - 1"
    assert over_allowed(40000, 0.99) == 353
    c = claim([float(i) for i in range(40000)], 0.99)
    assert c.estimate == 40000 - 353 and c.discarded == 352
