"""Pure scoring and statistics of harness.quality, with literal numbers."""

from __future__ import annotations

import pytest

from harness.errors import ProtocolError
from harness.quality.stats import (
    benchmark_score,
    effective_limit,
    other_metrics,
    split_think,
    thinking_stats,
)
from harness.stats.summary import achieved_concurrency


@pytest.mark.parametrize(
    ("limit", "num_docs", "expected"),
    [
        (0.1, None, 0.1),
        (0.999, None, 0.999),
        (1.0, None, None),  # lm-eval would read 1.0 as ONE document
        (5.0, None, 5),  # a whole count above 1: the first 5 documents
        (None, None, None),
        (0.1, 200, 200),  # a fixed count (Paris GSM8K) wins
    ],
)
def test_effective_limit(limit, num_docs, expected):
    assert effective_limit(limit, num_docs) == expected


def test_concurrency_empty_and_single():
    assert achieved_concurrency([]) == (0, 0.0)
    assert achieved_concurrency([(0, 10)]) == (1, 1.0)


def test_concurrency_overlap():
    # two requests overlap on [5, 10]; busy time 10 + 10 over a span of 15
    peak, mean = achieved_concurrency([(0, 10), (5, 15)])
    assert peak == 2
    assert mean == pytest.approx(20 / 15)


def test_concurrency_back_to_back_is_one():
    # an end and a start at the same instant do not overlap
    assert achieved_concurrency([(0, 10), (10, 20)])[0] == 1


def test_mean_of_subtasks_is_unweighted():
    results = {
        "mmlu_pro": {"exact_match,custom-extract": 0.9},  # group aggregate: ignored
        "mmlu_pro_a": {"exact_match,custom-extract": 1.0},
        "mmlu_pro_b": {"exact_match,custom-extract": 0.0},
        "mmlu_pro_c": {"exact_match,custom-extract": 0.5},
    }
    groups = {"mmlu_pro": ["mmlu_pro_a", "mmlu_pro_b", "mmlu_pro_c"]}
    score, per = benchmark_score(
        results, groups, "mmlu_pro", "exact_match,custom-extract", "mean_of_subtasks"
    )
    assert score == pytest.approx(0.5)
    assert per == {"mmlu_pro_a": 1.0, "mmlu_pro_b": 0.0, "mmlu_pro_c": 0.5}


def test_task_score_and_missing_metric():
    results = {"ifeval": {"inst_level_strict_acc,none": 0.75, "alias": "ifeval"}}
    assert benchmark_score(results, {}, "ifeval", "inst_level_strict_acc,none", "task") == (
        0.75,
        {},
    )
    with pytest.raises(ProtocolError, match="no metric"):
        benchmark_score(results, {}, "ifeval", "exact_match,none", "task")
    with pytest.raises(ProtocolError, match="no subtasks"):
        benchmark_score(results, {}, "mmlu_pro", "exact_match,custom-extract", "mean_of_subtasks")


def test_other_metrics_skip_main_and_stderr():
    got = other_metrics(
        {
            "exact_match,flexible-extract": 0.5,
            "exact_match_stderr,flexible-extract": 0.1,
            "exact_match,strict-match": 0.25,
            "alias": "gpqa",
        },
        "exact_match,flexible-extract",
    )
    assert got == {"exact_match,strict-match": 0.25}


def test_split_think():
    assert split_think("abc</think>\n(B)", "</think>") == ("abc", "\n(B)")
    assert split_think("no close", "</think>") is None


def test_thinking_stats_lost_budget_and_tokens():
    answers = [
        ("think think</think>The answer is (A)", "", "stop", 9),  # closed: 2 words thought
        ("still thinking and thinking", "", "length", 40),  # cut in the think block: lost
        ("plain answer (C)", "", "stop", 3),  # no think block at all
        ("(D)", "split-out reasoning here", "stop", 12),  # server split the reasoning out
    ]
    stats = thinking_stats(
        answers, think_close="</think>", count_tokens=lambda s: len(s.split()), extracted=3
    )
    assert stats.answers == 4
    assert stats.lost_to_budget == 1
    assert stats.extracted == 3
    # think tokens: 2 (counted) + 40 (usage of the lost answer) + 3 (reasoning field)
    assert stats.think_tokens_mean == pytest.approx((2 + 40 + 3) / 3)


def test_thinking_stats_empty():
    stats = thinking_stats([], think_close="</think>")
    assert (stats.answers, stats.lost_to_budget, stats.think_tokens_mean) == (0, 0, None)
