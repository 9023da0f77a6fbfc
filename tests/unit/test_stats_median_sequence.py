"""The confidence sequence for a median (harness/stats/median_sequence.py), on literal numbers."""

from __future__ import annotations

import itertools

import pytest

from harness.stats.binomial import cdf_half as binom_cdf_half
from harness.stats.median_sequence import (
    ALPHA,
    BUDGET,
    MIN_RUNS,
    boundary,
    fixed_rank,
    look,
    looks,
    miss_probability,
)
from harness.stats.robust import median as sample_median


def test_binomial_cdf_of_a_fair_coin():
    assert binom_cdf_half(10, -1) == 0.0
    assert binom_cdf_half(10, 0) == 1 / 1024
    assert binom_cdf_half(10, 1) == 11 / 1024
    assert binom_cdf_half(10, 10) == 1.0
    assert binom_cdf_half(0, 0) == 1.0


def test_fixed_n_ranks_are_the_textbook_order_statistic_intervals():
    # [min, max] of 5 covers the median with 1 - 2/32 = 93.75 %: no 95 % interval
    assert fixed_rank(5, 0.05) == 0
    assert fixed_rank(6, 0.05) == 1  # 1 - 2/64 = 96.9 %
    assert fixed_rank(10, 0.05) == 2  # [X(2), X(9)]: 1 - 22/1024 = 97.9 %
    assert fixed_rank(50, 0.05) == 18  # [X(18), X(33)]
    assert fixed_rank(1, 0.05) == 0
    assert fixed_rank(0, 0.05) == 0


def test_miss_probability_of_one_look_is_the_fixed_n_miss():
    assert miss_probability({10: 1}, 10) == pytest.approx(2 / 1024)
    assert miss_probability({10: 2}, 10) == pytest.approx(22 / 1024)
    assert miss_probability({}, 10) == 0.0
    assert miss_probability({10: 0}, 10) == 0.0  # a look without an interval cannot miss


def test_miss_probability_equals_brute_force_over_every_sign_sequence():
    # every sequence of "below the median" (1) / "above" (0) of length 12 is equally likely
    ranks = {10: 1, 11: 2, 12: 2}
    missed = 0
    for signs in itertools.product((0, 1), repeat=12):
        for n, lo in ranks.items():
            s = sum(signs[:n])
            if s < lo or s > n - lo:
                missed += 1
                break
    assert miss_probability(ranks, 12) == pytest.approx(missed / 2**12)


def test_the_profiles_boundary_spends_at_most_its_budget_over_all_looks():
    b = boundary(50)
    assert (b.floor, b.cap, b.alpha, b.budget) == (MIN_RUNS, 50, ALPHA, BUDGET) == (
        10, 50, 0.05, 0.045
    )  # fmt: skip
    assert b.miss <= 0.045 and b.miss == pytest.approx(0.04493, abs=5e-5)
    assert b.nominal == pytest.approx(0.012541, abs=1e-6)
    assert [b.rank(n) for n in (9, 10, 11, 14, 15, 16, 17, 18, 20, 30, 50, 51)] == [
        0, 1, 2, 2, 3, 3, 3, 4, 5, 8, 16, 0
    ]  # fmt: skip
    # the whole 5 % would give narrower intervals at 14, 17 and 48 (a miss of 4.96 %)
    full = boundary(50, budget=0.05)
    assert full.miss == pytest.approx(0.04964, abs=5e-5)
    assert [n for n in range(10, 51) if full.rank(n) != b.rank(n)] == [14, 17, 48]
    assert [full.rank(n) - b.rank(n) for n in (14, 17, 48)] == [1, 1, 1]
    # each look is wider than the fixed-n interval at that n: the price of looking 41 times
    assert all(b.rank(n) <= fixed_rank(n, 0.05) for n in range(10, 51))
    assert miss_probability(b.ranks, 50) == pytest.approx(b.miss)


def test_small_caps():
    assert looks(10, 50)[:2] == [10, 11] and looks(10, 50)[-1] == 50
    assert looks(10, 8) == [8] and looks(10, 10) == [10] and looks(10, 0) == []
    assert boundary(5).ranks == {5: 0} and boundary(5).miss == 0.0  # too few for any interval
    assert boundary(8).ranks == {8: 1}  # one look: the fixed-n [min, max], 1 - 2/256
    assert boundary(8).miss == pytest.approx(2 / 256)


def test_sample_median_is_statistics_median():
    assert sample_median([]) is None
    assert sample_median([3.0]) == 3.0
    assert sample_median([3.0, 1.0]) == 2.0
    assert sample_median([5.0, 1.0, 3.0]) == 3.0


def test_look_empty_and_single_sample_have_no_interval():
    b = boundary(50)
    empty = look([], b, 1.0)
    assert (empty.n, empty.median, empty.lo, empty.hi, empty.narrow) == (0, None, None, None, False)
    one = look([100.0], b, 50.0)
    assert (one.n, one.median, one.lo, one.hi, one.half_width_pct, one.narrow) == (
        1,
        100.0,
        None,
        None,
        None,
        False,
    )


def test_look_at_the_floor_is_min_max():
    b = boundary(50)
    xs = [100.0 + i for i in (9, 0, 8, 1, 7, 2, 6, 3, 5, 4)]  # 100..109, any order
    lk = look(xs, b, 5.0)
    assert (lk.n, lk.median, lk.lo, lk.hi) == (10, 104.5, 100.0, 109.0)
    assert lk.half_width_pct == pytest.approx(4.5 / 104.5 * 100)
    assert lk.narrow and not look(xs, b, 4.0).narrow


def test_look_uses_the_sequence_ranks_not_the_fixed_ones():
    b = boundary(50)
    xs = [float(v) for v in range(1, 17)]  # 16 values: rank 3 → [3, 14]
    lk = look(xs, b, 100.0)
    assert (lk.lo, lk.hi, lk.median) == (3.0, 14.0, 8.5)
    assert lk.half_width_pct == pytest.approx(5.5 / 8.5 * 100)
