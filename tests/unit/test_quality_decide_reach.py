"""Whether --decide can stop before the last document, with literal designs."""

from __future__ import annotations

from harness.quality.decide_reach import earliest_decision
from harness.quality.decide_stats import Design, Stratum, look_every


def _right_wrong(n: int, threshold: float) -> Design:
    return Design((Stratum(0, 1, n),), threshold)


def test_small_sets_need_every_document() -> None:
    # 3 IFEval-sized or 5 GPQA-sized documents: one round of 8 holds them all
    assert earliest_decision(_right_wrong(3, 0.814), look_every(3, 8)) is None
    assert earliest_decision(_right_wrong(5, 0.63), look_every(5, 8)) is None
    assert earliest_decision(_right_wrong(1, 0.5), 1) is None


def test_sets_that_can_stop_early() -> None:
    # 40 right/wrong against 0.63: 8 wrong of 8 settle a FAIL at the first look
    assert earliest_decision(_right_wrong(40, 0.63), 8) == 8
    # MMLU-Pro's 14 subjects of one document: 6 wrong of the first 8 fail it for certain
    mmlu = Design(tuple(Stratum(g, 1, 1) for g in range(14)), 0.621, n_groups=14)
    assert earliest_decision(mmlu, look_every(14, 8)) == 8


def test_one_round_holds_the_set_whatever_the_threshold() -> None:
    for threshold in (0.1, 0.5, 0.9):
        assert earliest_decision(_right_wrong(8, threshold), 8) is None
    # a second look exists from 9 documents on: 8 wrong of 9 fail 0.5 for certain
    assert earliest_decision(_right_wrong(9, 0.5), 8) == 8
