"""The three accuracy readings, with literal numbers."""

from __future__ import annotations

import pytest

from harness.vlm.accuracy import accuracy, contains_answer, normalize, vqa_accuracy, yes_no_match

GT_STOP = ["stop"] * 7 + ["stop sign"] * 3


def test_normalize_evalai_style() -> None:
    assert normalize("The Two dogs!") == "2 dogs"
    assert normalize("  Yes.\n") == "yes"
    assert normalize("dont") == "don't"
    assert normalize("1,000") == "1000"


def test_vqa_leave_one_out() -> None:
    # 7 matches: every 9-subset holds >= 6 matches → 1.0
    assert vqa_accuracy("stop", GT_STOP) == 1.0
    # 3 matches "stop sign": subsets dropping one of them have 2 → 2/3, others 3 → 1
    assert vqa_accuracy("Stop sign", GT_STOP) == pytest.approx((3 * (2 / 3) + 7 * 1.0) / 10)
    # 1 match of 10: 9 subsets have it (1/3), one does not (0)
    assert vqa_accuracy("x", ["x"] + ["y"] * 9) == pytest.approx(9 * (1 / 3) / 10)
    assert vqa_accuracy("The sign says stop.", GT_STOP) == 0.0
    assert vqa_accuracy("stop", []) == 0.0


def test_containment_on_word_boundaries() -> None:
    assert contains_answer("The sign says STOP.", GT_STOP) == 1.0
    assert contains_answer("It is a stopwatch", GT_STOP) == 0.0
    assert contains_answer("", GT_STOP) == 0.0


def test_yes_no_first_word() -> None:
    assert yes_no_match("Yes, the light is on.", ["yes"] * 9 + ["no"]) == 1.0
    assert yes_no_match("No, it is not.", ["yes"] * 10) == 0.0
    assert yes_no_match("It is bright.", ["yes"] * 10) == 0.0


def test_accuracy_aggregate_and_headline() -> None:
    figs = accuracy(
        [("The sign says stop", GT_STOP), ("yes", ["yes"] * 10), ("nothing", [])],
        headline="containment",
    )
    assert figs.n == 2
    assert figs.containment == 1.0
    assert figs.vqa == pytest.approx(0.5)
    assert figs.yes_no == 1.0 and figs.yes_no_n == 1
    assert figs.headline_value() == 1.0
    empty = accuracy([], headline="vqa")
    assert empty.n == 0 and empty.vqa is None and empty.headline_value() is None
