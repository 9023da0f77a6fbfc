"""A run's own drift (harness/paired/drift.py) with literal numbers, empty and single samples."""

from __future__ import annotations

import math

import pytest

from harness.paired.drift import (
    Drift,
    block_indexes,
    drift_band,
    median_drift,
    ratio_drift,
    robust_sd,
    score_drift,
    score_spread,
    wave_blocks,
)
from harness.stats.distributions import t975


def test_t975_table_rounds_df_down_and_ends_at_the_normal():
    assert t975(1) == 12.706
    assert t975(6) == 2.447
    assert t975(6.9) == 2.447  # a fractional df takes the lower df: the wider band
    assert t975(11) == 2.228  # between 10 and 12: 10's quantile
    assert t975(0.5) == 12.706  # below 1: as 1
    assert t975(120) == 1.980
    assert t975(121) == 1.96
    assert t975(math.inf) == 1.96


def test_block_indexes():
    assert block_indexes(0) == []
    assert block_indexes(1) == [[0]]
    assert block_indexes(3) == [[0], [1], [2]]
    assert block_indexes(5) == [[0, 1], [2], [3], [4]]
    assert block_indexes(8) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert block_indexes(10) == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]


def test_robust_sd():
    assert robust_sd([]) == 0.0
    assert robust_sd([5.0]) == 0.0
    assert robust_sd([1.0, 3.0]) == pytest.approx(1.4826)  # deviations 1, 1
    # one far value does not move it: median 3, deviations 2, 1, 0, 1, 97 → MAD 1
    assert robust_sd([1.0, 2.0, 3.0, 4.0, 100.0]) == pytest.approx(1.4826)


def test_median_drift_empty_single_and_literal():
    assert median_drift([]) is None
    assert median_drift([5.0]) is None  # one block: no estimate
    d = median_drift([1.0, 3.0])
    assert d == Drift(sd=pytest.approx(1.4826), blocks=2)  # type: ignore[arg-type]
    # block medians 1.5, 3.5, 5.5, 7.5: deviations from 4.5 are 3, 1, 1, 3 → MAD 2
    d8 = median_drift([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    assert d8 is not None and d8.blocks == 4 and d8.df == 3
    assert d8.sd == pytest.approx(1.4826 * 2)
    assert median_drift([10.0, 10.0, 10.0, 10.0, 10.0]) == Drift(sd=0.0, blocks=4)
    # one block hit by a burst (medians 10, 10, 10, 14): the run's median barely moves,
    # and neither does the robust spread
    burst = median_drift([10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 14.0, 14.0])
    assert burst == Drift(sd=0.0, blocks=4)


def test_score_drift():
    assert score_drift([], []) is None
    assert score_drift([[10.0]], [100.0]) is None  # one request per bucket
    assert score_drift([[10.0, 20.0]], [100.0, 50.0]) is None  # a baseline per bucket
    # one bucket: block scores 10, 10, 5, 5 → deviations from 7.5 all 2.5
    d = score_drift([[10.0, 10.0, 20.0, 20.0]], [100.0])
    assert d is not None and d.blocks == 4
    assert d.sd == pytest.approx(1.4826 * 2.5)
    # two buckets, two blocks: scores (10 + 5) / 2 and (5 + 2.5) / 2, deviations 1.875
    d2 = score_drift([[10.0, 20.0], [20.0, 40.0]], [100.0, 100.0])
    assert d2 is not None and d2.blocks == 2
    assert d2.sd == pytest.approx(1.4826 * 1.875)
    # the block count follows the shortest bucket
    d3 = score_drift([[10.0] * 8, [10.0, 10.0, 10.0]], [100.0, 100.0])
    assert d3 == Drift(sd=0.0, blocks=3)


def test_wave_blocks_are_whole_waves():
    assert wave_blocks([], [], []) is None
    assert wave_blocks([10.0, 10.0], [1.0, 2.0], [0, 0]) is None  # one wave: no blocks
    # two waves: 20 tokens / 2 s and 20 tokens / 4 s
    assert wave_blocks([10.0] * 4, [1.0, 1.0, 2.0, 2.0], [0, 0, 1, 1]) == [10.0, 5.0]
    # eight waves of one request → four blocks of two waves
    assert wave_blocks([1.0] * 8, [1.0] * 8, list(range(8))) == [1.0, 1.0, 1.0, 1.0]
    assert wave_blocks([1.0, 1.0], [0.0, 0.0], [0, 1]) is None  # no time: no ratio


def test_ratio_drift_sets_b_against_a_block_by_block():
    assert ratio_drift([1.0], [1.0]) is None
    assert ratio_drift([1.0, 1.0], [1.0, 1.0, 1.0]) is None  # other waves: not paired
    # the same shape in both runs (a slow first wave) is no drift
    assert ratio_drift([10.0, 5.0], [20.0, 10.0]) == Drift(sd=0.0, blocks=2)
    # opposite shapes: relative blocks 4/3, 2/3 against 2/3, 4/3
    d = ratio_drift([10.0, 5.0], [5.0, 10.0])
    assert d is not None and d.sd == pytest.approx((4 / 3) / math.sqrt(2))
    # B's last block at half speed: differences 1/7, 1/7, 1/7, -3/7 → SD 2/7 (plain, ddof 1)
    slow = ratio_drift([1.0] * 4, [1.0, 1.0, 1.0, 0.5])
    assert slow is not None and slow.blocks == 4 and slow.sd == pytest.approx(2 / 7)


def test_drift_band():
    assert drift_band([]) == 0.0
    assert drift_band([(1.0, Drift(0.0, 4)), (1.0, Drift(0.0, 4))]) == 0.0
    # equal SDs, 4 blocks each: df 6, t 2.447
    assert drift_band([(1.0, Drift(1.0, 4)), (1.0, Drift(1.0, 4))]) == pytest.approx(
        2.447 * math.sqrt(2)
    )
    # SD 3 and 4: var 25, Welch df 625 / (81/3 + 256/3) = 5.56 → t(5) 2.571
    assert drift_band([(1.0, Drift(3.0, 4)), (1.0, Drift(4.0, 4))]) == pytest.approx(2.571 * 5)
    # relative drifts scaled by tok/s: 2 % of 100 on each side
    assert drift_band([(100.0, Drift(0.02, 4)), (100.0, Drift(0.02, 4))]) == pytest.approx(
        2.447 * math.sqrt(8)
    )


def test_score_spread():
    assert score_spread([], []) == 0.0
    assert score_spread([[]], [100.0]) == 0.0
    assert score_spread([[10.0, 20.0]], [100.0, 50.0]) == 0.0  # a baseline per bucket
    # median 15, robust SD 1.4826 × 5: the score moves by 100 / 15² per ms
    one = score_spread([[10.0, 10.0, 20.0, 20.0]], [100.0])
    assert one == pytest.approx(100 / 225 * 1.4826 * 5)
    # a second bucket without spread halves it (the mean of two buckets)
    two = score_spread([[10.0, 10.0, 20.0, 20.0], [10.0, 10.0, 10.0, 10.0]], [100.0, 100.0])
    assert two == pytest.approx(one / 2)
