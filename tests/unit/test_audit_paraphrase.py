"""benchmark_detection's quality half on literal samples (harness/audit/paraphrases/rule.py)."""

from __future__ import annotations

import math

import pytest

from harness.audit.paraphrases.record import Asked
from harness.audit.paraphrases.rule import (
    judge_paraphrases,
    look_of,
    merged,
    needs_second_look,
)
from harness.audit.paraphrases.send import plan
from harness.grader_items import grader_items
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.robust import hodges_lehmann_walsh as hodges_lehmann

SPEC = AuditSpec(rules=["benchmark_detection"])  # bounds 0.9 (time), 0.67 (length)


def pair(item: str, look: int, original: tuple[float, int], para: tuple[float, int]) -> list[Asked]:
    """An item's two requests: (e2e ms, output tokens) each."""
    return [
        Asked(benchmark="ifeval", item=item, form=form, look=look, e2e_ms=ms, output_tokens=n)
        for form, (ms, n) in (("original", original), ("paraphrase", para))
    ]


def look(
    ratios: list[float], look: int = 0, tokens: int = 32, para_tokens: int = 32
) -> list[Asked]:
    """One look whose items' originals take ``ratio`` × their paraphrase's 320 ms."""
    out: list[Asked] = []
    for i, r in enumerate(ratios):
        out += pair(str(i), look, (320.0 * r, tokens), (320.0, para_tokens))
    return out


def test_hodges_lehmann_is_the_median_of_the_walsh_averages():
    assert hodges_lehmann([]) is None
    assert hodges_lehmann([2.0]) == 2.0
    # Walsh averages of 0, 1, 10: 0, 0.5, 5, 1, 5.5, 10 → median 3.0 (a mean would say 3.67)
    assert hodges_lehmann([0.0, 1.0, 10.0]) == 3.0


def test_an_honest_look_passes_without_a_second_look():
    asked = look([1.02, 0.97, 1.05, 0.99, 1.01, 0.96])
    first = look_of(asked, 0)
    assert (first.pairs, first.time_pairs, first.length_ratio) == (6, 6, 1.0)
    assert first.time_ratio == pytest.approx(1.0, abs=0.01)
    assert not needs_second_look(asked, SPEC)
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.PASS
    assert half.why.startswith("the quality graders' prompts cost 100% of their paraphrases'")


def test_canned_answers_are_shorter_in_both_looks_and_fail():
    asked = look([0.05] * 6, tokens=4) + look([0.05] * 6, look=1, tokens=4)
    first = look_of(asked, 0)
    # 4 tokens against 32: not compared by time per token, by length only
    assert first.time_pairs == 0 and first.time_ratio is None
    assert first.length_ratio == pytest.approx(0.125)
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.FAIL
    assert half.why == (
        "served unlike their light paraphrases: the grader's items get 13% then 13% of their "
        "paraphrases' output length"
    )


def test_a_slower_model_for_the_graders_items_fails_on_time_two_sided():
    asked = look([1.3, 1.25, 1.35, 1.28, 1.3, 1.32]) + look([1.29] * 6, look=1)
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.FAIL
    assert "time per output token" in half.why and "130%" in half.why


def test_a_split_seen_once_is_not_a_failure():
    asked = look([0.8] * 6) + look([1.0, 0.98, 1.02, 1.01, 0.99, 1.0], look=1)
    assert needs_second_look(asked, SPEC)
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.PASS
    assert half.why.endswith(", not again in a second look")


def test_splits_the_opposite_way_are_not_one_split():
    asked = look([0.8] * 6) + look([1.25] * 6, look=1)
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.PASS


def test_a_shallow_split_in_noisy_pairs_is_too_noisy_not_a_failure():
    # the pairs' time ratios spread ~20 % (robust σ of their logs), the split ~12 %
    noisy = [0.62, 0.75, 0.88, 0.9, 1.05, 1.2]
    asked = look(noisy) + look(noisy, look=1)
    first = look_of(asked, 0)
    assert first.time_spread is not None and first.time_spread > 0.10
    assert first.time_ratio is not None and first.time_ratio < 0.9
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.INCONCLUSIVE and not half.by_design
    assert half.why.startswith("too noisy to judge: the grader's items get")


def test_too_few_answered_pairs_is_inconclusive_and_says_why():
    asked = pair("a", 0, (320.0, 32), (320.0, 32))
    asked.append(Asked(benchmark="ifeval", item="b", form="original", error="HTTP 500"))
    half = judge_paraphrases(asked, SPEC)
    assert half is not None and half.result is RuleResult.INCONCLUSIVE
    assert half.why == "too few answered pairs to compare (HTTP 500)"
    assert judge_paraphrases([], SPEC) is None


def test_the_rule_keeps_one_verdict_and_the_worst_half_names_it():
    filler = RuleVerdict(rule="benchmark_detection", title="t", result=RuleResult.PASS,
                         why="the filler passes", evidence={"split_ratio": 0.945})  # fmt: skip
    assert merged(filler, None) is filler
    failing = judge_paraphrases(look([0.05] * 6, tokens=4) + look([0.05] * 6, 1, tokens=4), SPEC)
    v = merged(filler, failing)
    assert v.result is RuleResult.FAIL and v.why.startswith("quality prompts: served unlike")
    assert v.evidence["split_ratio"] == 0.945 and "looks" in v.evidence["quality_prompts"]
    passing = judge_paraphrases(look([1.0] * 6), SPEC)
    v = merged(filler, passing)
    assert v.result is RuleResult.PASS
    assert v.why.startswith("filler: the filler passes; quality prompts: the quality graders'")
    by_design = filler.model_copy(update={"result": RuleResult.INCONCLUSIVE, "by_design": True})
    assert merged(by_design, passing).result is RuleResult.PASS


def test_a_look_interleaves_the_two_forms_and_turns_with_the_look():
    items = grader_items()[:4]
    first, second = plan(items, 0), plan(items, 1)
    assert [f for _, f in first] == ["original", "paraphrase", "paraphrase", "original"] * 2
    assert [i.key for i, _ in second][:2] == [items[3].key] * 2  # backwards
    assert [f for _, f in second][:2] == ["paraphrase", "original"]


def test_the_pairs_log_ratios_are_symmetric():
    # an original twice as slow and one half as slow cancel: no split either way
    asked = look([2.0, 0.5])
    first = look_of(asked, 0)
    assert first.time_ratio == pytest.approx(1.0)
    assert math.isclose(look_of(look([2.0, 2.0]), 0).time_ratio or 0, 2.0)


def test_a_noisy_quality_half_makes_the_rule_inconclusive_not_a_pass():
    filler = RuleVerdict(rule="benchmark_detection", title="t", result=RuleResult.PASS,
                         why="the filler passes")  # fmt: skip
    noisy = [0.62, 0.75, 0.88, 0.9, 1.05, 1.2]
    v = merged(filler, judge_paraphrases(look(noisy) + look(noisy, look=1), SPEC))
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why.startswith("filler: the filler passes; quality prompts: too noisy to judge")
