"""The confirmation's pure statistics on literal numbers: the paired lead and its t interval,
compare's call with its 2 % minimum effect, the selection error and the tie rule."""

from __future__ import annotations

import math

import pytest

from harness.tune.confirm.stats import Option, lead, mean_ci, pairs, selection, tie_pick


def test_a_clear_lead_is_confirmed_with_a_paired_t_interval() -> None:
    got = lead([10.0, 10.2, 9.8], [9.0, 9.1, 8.9])
    logs = [math.log(10 / 9), math.log(10.2 / 9.1), math.log(9.8 / 8.9)]
    mean = sum(logs) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2)
    half = 4.303 * sd / math.sqrt(3)  # t(2) at 0.975
    assert got.pairs == 3 and got.call == "confirmed"
    assert got.pct == pytest.approx((math.exp(mean) - 1) * 100)
    assert got.pct == pytest.approx(11.1009, abs=1e-3)
    assert got.ci95_pct is not None
    assert got.ci95_pct[0] == pytest.approx((math.exp(mean - half) - 1) * 100)
    assert got.ci95_pct[1] == pytest.approx((math.exp(mean + half) - 1) * 100)
    assert got.ci95_pct == pytest.approx((8.6736, 13.5823), abs=1e-3)


def test_a_lead_whose_interval_holds_zero_is_a_tie() -> None:
    got = lead([10.0, 10.2, 9.8], [10.1, 9.9, 9.9])
    assert got.call == "tie"
    assert got.ci95_pct is not None and got.ci95_pct[0] < 0 < got.ci95_pct[1]
    assert got.pct == pytest.approx(0.3255, abs=1e-3)


def test_identical_scores_are_a_tie_of_zero_width() -> None:
    got = lead([10.0, 10.0, 10.0], [10.0, 10.0, 10.0])
    assert (got.call, got.pct, got.ci95_pct) == ("tie", 0.0, (0.0, 0.0))


def test_a_steady_lead_under_the_minimum_effect_is_a_tie() -> None:
    """+1.0 % with a CI clear of zero: real, but under compare's 2 % minimum effect."""
    winner, other = [10.1, 10.1, 10.1], [10.0, 10.001, 10.0]
    assert lead(winner, other).call == "tie"
    assert lead(winner, other, min_effect_pct=0.5).call == "confirmed"


def test_an_opponent_faster_beyond_noise_overturns_the_winner() -> None:
    got = lead([9.0, 9.1, 8.9], [10.0, 10.2, 9.8])
    assert got.call == "overturned"
    assert got.ci95_pct is not None and got.ci95_pct[1] < 0
    assert got.pct == pytest.approx(-9.9917, abs=1e-3)


def test_a_round_with_a_failed_leg_is_dropped() -> None:
    assert pairs([10.0, None, 10.0, 0.0], [9.0, 9.0, None, 9.0]) == [(10.0, 9.0)]
    one = lead([10.0, None, 10.0], [9.0, 9.0, None])
    assert (one.pairs, one.ci95_pct, one.call) == (1, None, "inconclusive")
    assert one.pct == pytest.approx(11.1111, abs=1e-3)
    assert lead([None, None], [9.0, 9.0]).call == "inconclusive"


def test_the_confirmed_score_is_the_mean_with_a_t_interval() -> None:
    m = mean_ci([15.6, 15.8, 16.0])
    assert m.n == 3 and m.mean == pytest.approx(15.8)
    assert m.ci95 == pytest.approx((15.8 - 4.303 * 0.2 / math.sqrt(3), 15.8 + 4.303 * 0.2 / 3**0.5))
    assert mean_ci([15.6]).ci95 is None and mean_ci([]).mean is None


def test_the_selection_error_names_a_lucky_sample() -> None:
    legs = [15.6, 15.8, 16.0]  # confirmed 15.8, 95 % CI 15.30…16.30
    lucky = selection(16.4, legs)
    assert lucky.luck == "lucky" and lucky.gap_pct == pytest.approx(3.7975, abs=1e-3)
    assert selection(15.9, legs).luck == "within"
    assert selection(15.0, legs).luck == "unlucky"
    assert selection(16.4, [15.8]).luck == "unknown"
    assert selection(None, legs).gap_pct is None


def test_a_tie_is_picked_by_the_simpler_diff_then_the_cold_start() -> None:
    pick, why = tie_pick([Option(4, 2, 1.0, 16.0), Option(2, 1, 1.3, 15.9)])
    assert pick.trial == 2
    assert why == "the simpler diff from the baseline (1 change(s) vs 2)"
    pick, why = tie_pick([Option(4, 1, 1.0, 16.0), Option(2, 1, 1.3, 16.1)])
    assert pick.trial == 4 and why == "the lower cold start (1.00 s vs 1.30 s)"
    pick, why = tie_pick([Option(4, 1, 1.0, 16.0), Option(2, 1, 1.0, 15.9)])
    assert pick.trial == 4 and why.startswith("the higher confirmed score")
