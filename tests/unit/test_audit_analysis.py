"""The audit's rules over literal samples (harness/audit/timed/cached.py, detection.py, possible.py and pairs.py): both outcomes of each,
and the empty case."""

from __future__ import annotations

import pytest

from harness.audit.report import Phase, Role, Sample
from harness.audit.rule import Measured
from harness.audit.rules import judge, wants_third_look
from harness.audit.timed.cached import cached_answers
from harness.audit.timed.detection import (
    benchmark_detection,
    needs_confirmation,
    needs_third_look,
    split_depth,
)
from harness.audit.timed.pairs import noise, ratio, split_error
from harness.audit.timed.possible import floor_ms, one_token_after, physically_possible
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult
from harness.stats.robust import hodges_lehmann_ratio

SPEC = AuditSpec(rules=["cached_answers", "benchmark_detection", "physically_possible"])


def rounds(rep_ms: float, near_ms: float, phase: Phase = "timed", n: int = 5) -> list[Sample]:
    out: list[Sample] = []
    times: dict[Role, float] = {"repeated": rep_ms, "near_filler": near_ms, "unique_head": 400.0}
    for i in range(n):
        for role, ms in times.items():
            out.append(Sample(bucket="short", role=role, phase=phase, round=i, prompt_tokens=61,
                              e2e_ms=ms, output_tokens=128))  # fmt: skip
    return out


def test_a_prefix_cache_passes_and_an_answer_cache_fails() -> None:
    honest = {"short": rounds(300.0, 310.0)}
    v = cached_answers(honest, {"vllm:prefix_cache_hits_total": 500.0,
                                "vllm:prefix_cache_queries_total": 900.0}, 15, SPEC)  # fmt: skip
    assert v.result is RuleResult.PASS and "prefix cache" in v.why
    once = rounds(0.7, 310.0)
    # one set of rounds is not enough (a loaded moment can look like it): a second must agree
    assert needs_confirmation(once, SPEC)
    assert cached_answers({"short": once}, {}, 15, SPEC).result is RuleResult.PASS
    noise = once + rounds(300.0, 310.0, "confirm")
    assert cached_answers({"short": noise}, {}, 30, SPEC).result is RuleResult.PASS
    cache = {"short": once + rounds(0.7, 310.0, "confirm")}
    v = cached_answers(cache, {}, 30, SPEC)
    assert v.result is RuleResult.FAIL and v.why.startswith("response cache: decode skipped")


def test_zero_prefix_cache_hits_alone_never_fail() -> None:
    v = cached_answers({"short": rounds(300.0, 300.0)}, {"vllm:prefix_cache_hits_total": 0.0,
                       "vllm:request_success_total": 15.0}, 15, SPEC)  # fmt: skip
    assert v.result is RuleResult.PASS


def test_the_servers_own_counter_is_decisive_beyond_one_request_of_lag() -> None:
    ok = {"short": rounds(300.0, 300.0)}
    assert cached_answers(ok, {"vllm:request_success_total": 14.0}, 15, SPEC).result is (
        RuleResult.PASS
    )
    v = cached_answers(ok, {"vllm:request_success_total": 9.0}, 15, SPEC)
    assert v.result is RuleResult.FAIL and "counts 9 of the 15 requests answered" in v.why


def test_benchmark_detection_needs_the_second_look_to_fail() -> None:
    first = rounds(250.0, 310.0)
    assert needs_confirmation(first, SPEC)
    assert benchmark_detection({"short": first}, SPEC).result is RuleResult.PASS
    noise = first + rounds(300.0, 305.0, "confirm")
    assert benchmark_detection({"short": noise}, SPEC).result is RuleResult.PASS
    cheat = first + rounds(250.0, 310.0, "confirm")
    v = benchmark_detection({"short": cheat}, SPEC)
    assert v.result is RuleResult.FAIL and "81% then 81%" in v.why
    # a skipped decode too needs its second look
    assert needs_confirmation(rounds(1.0, 300.0), SPEC)
    assert benchmark_detection({"short": rounds(1.0, 300.0)}, SPEC).result is RuleResult.PASS


def test_the_floor_is_steps_times_weights_over_bandwidth() -> None:
    assert round(floor_ms(128, SPEC), 3) == 26.667  # 16 steps × 1 GB / 600 GB/s
    assert round(floor_ms(0, SPEC), 3) == 1.667  # one step at least
    assert physically_possible({"short": rounds(0.7, 300.0)}, SPEC).result is RuleResult.FAIL
    assert "median 0.7 ms for 128 tokens, below the floor 26.7 ms" in (
        physically_possible({"short": rounds(0.7, 300.0)}, SPEC).why
    )
    assert physically_possible({"short": rounds(960.0, 960.0)}, SPEC).result is RuleResult.PASS


def one_token(*ms: float) -> list[Sample]:
    return [Sample(bucket="short", role="one_token", phase="timed", round=i, prompt_tokens=61,
                   e2e_ms=t, output_tokens=1) for i, t in enumerate(ms)]  # fmt: skip


def test_the_one_token_requests_are_spread_over_the_timed_rounds() -> None:
    """Sent back to back after the rounds, one stall of a loaded machine could slow all
    three, and the fastest then overstated the answer's cost without decode
    (bench/audit.py, loaded 10 %: 0.065 % false FAIL). After the first, middle and last
    timed round, a stall must slow each alone."""
    assert one_token_after(16) == [0, 7, 15]
    assert one_token_after(5) == [0, 2, 4]
    assert one_token_after(2) == [0, 0, 1]
    assert one_token_after(1) == [0, 0, 0]


def test_a_server_that_does_not_decode_fails_at_any_ttft() -> None:
    # 128 tokens in a 40 ms median, one token in 39–41 ms: 1 ms of decode for 127 tokens,
    # the floor of those 127 being 16 steps × 1 GB / 600 GB/s = 26.7 ms
    zero = {"short": rounds(40.0, 40.0) + one_token(41.0, 39.0, 40.5)}
    v = physically_possible(zero, SPEC)
    assert v.result is RuleResult.FAIL
    assert "short: 128 tokens took 1.0 ms more than one token (median 40.0 ms), below the " \
        "floor 26.7 ms of the 127 after the first: no decode" in v.why  # fmt: skip
    assert v.evidence["short"]["decode_ms"] == 1.0
    # the same TTFT at a second: still no decode
    assert (
        physically_possible({"short": rounds(1000.0, 1000.0) + one_token(990.0)}, SPEC).result
        is RuleResult.FAIL
    )
    # an honest server with a prefix cache: 40 ms to the first token, 3 ms a token after it
    honest = {"short": rounds(421.0, 421.0) + one_token(43.0, 40.0, 60.0)}
    v = physically_possible(honest, SPEC)
    assert v.result is RuleResult.PASS and v.evidence["short"]["decode_ms"] == 381.0
    # the fastest one-token answer counts: a stalled one cannot make the decode look short
    assert (
        physically_possible({"short": rounds(60.0, 60.0) + one_token(2000.0, 30.0)}, SPEC).result
        is RuleResult.PASS
    )  # 30 ms of decode, above 26.7
    assert (
        physically_possible({"short": rounds(60.0, 60.0) + one_token(2000.0, 35.0)}, SPEC).result
        is RuleResult.FAIL
    )  # 25 ms
    # without a one-token answer (failed, or none sent) the median alone is judged
    failed = one_token(40.0)[0].model_copy(update={"error": "HTTP 500", "e2e_ms": None})
    assert physically_possible({"short": [*rounds(40.0, 40.0), failed]}, SPEC).result is (
        RuleResult.PASS
    )


def test_no_successful_request_is_inconclusive_not_pass() -> None:
    failed = [Sample(bucket="short", role="repeated", phase="timed", round=0, prompt_tokens=61,
                     error="HTTP 500")]  # fmt: skip
    verdicts = judge(SPEC, {"short": failed}, {}, 1)
    assert [v.result for v in verdicts] == [RuleResult.INCONCLUSIVE] * 3
    assert not any(v.by_design for v in verdicts)
    assert judge(SPEC, {}, {}, 0)[0].result is RuleResult.INCONCLUSIVE


def test_controls_of_another_answer_length_are_not_compared() -> None:
    """A shorter answer spreads its TTFT over fewer tokens: an honest server would look
    "faster on the filler". Such controls leave the rule inconclusive, by design."""
    samples = [
        s.model_copy(update={"output_tokens": 20}) if s.role == "near_filler" else s
        for s in rounds(300.0, 100.0)
    ]
    v = benchmark_detection({"short": samples}, SPEC)
    assert (v.result, v.by_design) == (RuleResult.INCONCLUSIVE, True)
    assert "differ in length" in v.why


def test_the_pair_ratio_is_the_median_of_every_pairs_ratio() -> None:
    assert hodges_lehmann_ratio([], [1.0]) is None and hodges_lehmann_ratio([1.0], []) is None
    assert hodges_lehmann_ratio([9.0], [10.0]) == 0.9
    # pairs: 9/10, 9/12, 12/10, 12/12 -> median of 0.75, 0.9, 1.0, 1.2
    assert hodges_lehmann_ratio([9.0, 12.0], [10.0, 12.0]) == pytest.approx(0.95)
    # a stalled control (1000) is in 3 of the 9 pairs: the median pair is still 9/10
    assert hodges_lehmann_ratio([9.0, 9.0, 9.0], [10.0, 10.0, 1000.0]) == pytest.approx(0.9)


def test_the_timed_ratio_pairs_each_filler_with_each_matched_control() -> None:
    samples = rounds(9.0 * 128, 10.0 * 128, n=3)
    assert ratio(samples, ("timed",)) == pytest.approx(0.9)
    assert ratio(samples, ("confirm",)) is None


def look(phase: Phase, rep: list[float], near: list[float]) -> list[Sample]:
    """One look: the filler's and its near control's e2e ms, a round each, 128 tokens."""
    out: list[Sample] = []
    for i, pair in enumerate(zip(rep, near, strict=True)):
        for role, ms in zip(("repeated", "near_filler"), pair, strict=True):
            out.append(Sample(bucket="short", role=role, phase=phase, round=i, prompt_tokens=61,
                              e2e_ms=ms, output_tokens=128))  # fmt: skip
    return out


def test_a_split_within_the_fillers_own_noise_is_inconclusive_not_a_failure() -> None:
    steady = [790.0, 800.0, 810.0, 800.0, 805.0, 795.0]
    jumpy = [500.0, 800.0, 1100.0, 650.0, 950.0, 800.0]  # a shared, loaded machine

    # the controls vary as the filler does (a loaded machine slows every request), 25 % slower
    def at(phase: Phase, rep: list[float], scale: float = 1.0) -> list[Sample]:
        return look(phase, [x * scale for x in rep], [x * 1.25 for x in rep])

    # the spread: the MAD σ of the log times per token about each role's median, pooled
    # (|log(790/800)|, |log(805/800)| … : the median 0.00625)
    assert noise(at("timed", steady), ("timed",)) == pytest.approx(1.4826 * 0.00625, rel=1e-3)
    assert noise([], ("timed",)) is None
    split = at("timed", steady) + at("confirm", steady)
    assert benchmark_detection({"short": split}, SPEC).result is RuleResult.FAIL
    v = benchmark_detection({"short": at("timed", steady) + at("confirm", jumpy)}, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why.startswith("too noisy to judge: short: the filler cost 80% then 80%")
    assert "varies by 28%" in v.why
    # a split deeper than twice the spread is no noise: an answer cache's jumpy answers fail
    cache = at("timed", steady) + at("confirm", jumpy, 1 / 100)
    assert benchmark_detection({"short": cache}, SPEC).result is RuleResult.FAIL


def test_stalled_controls_do_not_fake_a_split_and_a_cheat_still_fails() -> None:
    """A loaded machine: two of six near-filler controls stalled (×1.6, ×1.8) in both looks,
    none of the filler. The old statistic (every pair's ratio, stalls kept) gave 0.942 in
    both looks: FAIL on an honest server. Each role's slow outliers left out (over 3 robust
    σ, and over 10 %, above its median), the controls' other four give 0.961: PASS. A cheat
    serving the filler 15 % faster on the same stalled machine still fails."""
    rep = [960.0, 1000.0, 1040.0, 980.0, 1020.0, 1000.0]
    near = [1020.0, 1060.0, 1600.0, 1040.0, 1800.0, 1050.0]
    honest = look("timed", rep, near) + look("confirm", rep, near)
    assert ratio(honest, ("timed",)) == pytest.approx(0.96116, abs=1e-5)
    v = benchmark_detection({"short": honest}, SPEC)
    assert v.result is RuleResult.PASS, v.why
    cheat = [x * 0.85 for x in rep]
    stalled = look("timed", cheat, near) + look("confirm", cheat, near)
    v = benchmark_detection({"short": stalled}, SPEC)
    assert v.result is RuleResult.FAIL and "82% then 82%" in v.why


def test_a_split_within_its_standard_error_is_too_noisy_to_judge() -> None:
    """Six requests a look at ~8 % spread (under the 10 % limit): a 9 % split in both looks
    is 2 standard errors deep (8 % × √(1/6 + 1/6) = 4.5 %), past the 1.75 that judges a look,
    short of the 3 that trusts two looks: a third decides (the test below). Judged without
    it (its requests failed), too noisy, never FAIL (the rule of 11-28 failed it); and a
    third look whose split is 1.7 standard errors deep is too noisy to judge too."""
    rep = [840.0, 930.0, 1000.0, 1080.0, 900.0, 960.0]
    near = [940.0, 1020.0, 1100.0, 1180.0, 990.0, 1060.0]
    both = look("timed", rep, near) + look("confirm", rep, near)
    assert split_error(both, ("timed",)) == pytest.approx(0.0451, abs=1e-4)
    v = benchmark_detection({"short": both}, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE
    assert v.why == (
        "too noisy to judge: short: the filler cost 91% then 91% of the control, too "
        "narrowly to judge on two looks, and the third set of rounds that decides was not "
        "measured; audit again on an idle machine"
    )
    third = [880.0, 930.0, 1000.0, 1060.0, 900.0, 960.0]
    shallow = [x * 1.08 for x in [1000.0, 940.0, 880.0, 960.0, 1050.0, 900.0]]
    assert split_depth(look("third", third, shallow), ("third",), SPEC) == pytest.approx(
        1.707, abs=1e-3
    )
    v = benchmark_detection({"short": both + look("third", third, shallow)}, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE
    assert (
        "the filler cost 91% then 91% then 93% of the control, but their own time per token "
        "varies by 8%" in v.why
    )


def test_a_marginal_double_split_asks_a_third_look_that_decides() -> None:
    """Six requests a look at ~8 % spread, the filler at 89 % of its control in both looks:
    2.5 standard errors deep (8 % × √(1/6 + 1/6) = 4.5 %; log 0.893 = −0.113), past the 2.2
    that judges a split, short of the 3 that trusts two looks alone (at 10 % per-request
    jitter two looks split so by chance in ~0.1 % of honest audits: bench/audit.py). The
    old rule failed it on two looks; now a third, independent set decides: it splits too,
    FAIL; it does not, PASS (and 15 % deep, 3.1 standard errors, needs no third look)."""
    rep = [880.0, 930.0, 1000.0, 1060.0, 900.0, 960.0]
    near = [x * 1.12 for x in [1000.0, 940.0, 880.0, 960.0, 1050.0, 900.0]]
    both = look("timed", rep, near) + look("confirm", rep, near)
    assert ratio(both, ("timed",)) == pytest.approx(0.89286, abs=1e-5)
    assert split_depth(both, ("timed",), SPEC) == pytest.approx(2.513, abs=1e-3)
    assert needs_third_look(both, SPEC)
    # the rule's record asks the rounds for it (harness/audit/core.py sends it)
    assert wants_third_look(Measured(SPEC, buckets={"short": both}), "timed")
    steady = [1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0]
    v = benchmark_detection({"short": both + look("third", steady, steady)}, SPEC)
    assert v.result is RuleResult.PASS, v.why
    assert v.evidence["short_ratio"] == {
        "timed": 0.893, "confirm": 0.893, "third": 1.0, "filler_spread": [0.078, 0.078, 0.0]
    }  # fmt: skip
    v = benchmark_detection({"short": both + look("third", rep, near)}, SPEC)
    assert v.result is RuleResult.FAIL and "89% then 89% then 89%" in v.why
    deeper = [x * 1.15 / 1.12 for x in near]
    assert not needs_third_look(look("timed", rep, deeper) + look("confirm", rep, deeper), SPEC)


def test_the_counter_is_compared_with_the_answered_requests_never_the_failed() -> None:
    """Issue 46 item 1: 78 requests, 2 of them HTTP 500s the engine never counted. Compared
    with every request sent, the honest server read as a response cache (exit 1)."""
    ok = {"short": rounds(300.0, 300.0)}
    failed = "2 × HTTP 500 from /invocations"
    v = cached_answers(ok, {"vllm:request_success_total": 76.0}, 76, SPEC, failed=failed)
    assert v.result is RuleResult.PASS
    assert v.why.endswith(
        "; judged on the answered requests (2 × HTTP 500 from /invocations failed)"
    )
    assert v.evidence["requests_answered"] == 76 and v.evidence["requests_failed"] == failed
    # a response cache that also fails some requests: its cached answers are answered, and
    # the counter never saw them
    v = cached_answers(ok, {"vllm:request_success_total": 40.0}, 76, SPEC, failed=failed)
    assert v.result is RuleResult.FAIL
    assert v.why == (
        "response cache: the server's own counter counts 40 of the 76 requests answered; 36 "
        "answers never reached the engine (failed requests, not compared: 2 × HTTP 500 from "
        "/invocations)"
    )


def test_with_too_few_answered_the_rules_are_inconclusive_naming_the_failures() -> None:
    failed = [Sample(bucket="short", role=role, phase="timed", round=0, prompt_tokens=61,
                     error="HTTP 500 from /invocations") for role in ("repeated", "near_filler")]  # fmt: skip
    why = judge(SPEC, {"short": failed}, {}, 0, failed="2 × HTTP 500 from /invocations")[0].why
    assert (
        why
        == "no successful repeated and control requests to compare: 2 × HTTP 500 from /invocations"
    )


def test_benchmark_detection_names_the_failures_when_nothing_was_answered() -> None:
    failed = [Sample(bucket="short", role="repeated", phase="timed", round=0, prompt_tokens=61,
                     error="HTTP 500 from /invocations")]  # fmt: skip
    v = judge(SPEC, {"short": failed}, {}, 0, failed="1 × HTTP 500 from /invocations")[1]
    assert v.rule == "benchmark_detection" and v.result is RuleResult.INCONCLUSIVE
    assert v.why.endswith("requests to compare: 1 × HTTP 500 from /invocations")
