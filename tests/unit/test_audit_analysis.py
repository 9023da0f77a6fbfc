"""The audit's rules over literal samples (harness/audit/timed/analysis.py): both outcomes of each,
and the empty case."""

from __future__ import annotations

import pytest

from harness.audit.report import Phase, Role, Sample
from harness.audit.rules import judge
from harness.audit.timed.analysis import (
    benchmark_detection,
    cached_answers,
    floor_ms,
    needs_confirmation,
    noise,
    physically_possible,
    ratio,
)
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


def test_a_split_within_the_fillers_own_noise_is_inconclusive_not_a_failure() -> None:
    def look(phase: Phase, rep: list[float]) -> list[Sample]:
        out = rounds(800.0, 1000.0, phase, n=len(rep))
        for s, ms in zip([s for s in out if s.role == "repeated"], rep, strict=True):
            s.e2e_ms = ms
        return out

    steady = [790.0, 800.0, 810.0, 800.0, 805.0, 795.0]
    jumpy = [500.0, 800.0, 1100.0, 650.0, 950.0, 800.0]  # a shared, loaded machine
    assert noise(look("timed", steady), ("timed",)) == pytest.approx(1.4826 * 5 / 800)
    assert noise([], ("timed",)) is None
    split = look("timed", steady) + look("confirm", steady)
    assert benchmark_detection({"short": split}, SPEC).result is RuleResult.FAIL
    v = benchmark_detection({"short": look("timed", steady) + look("confirm", jumpy)}, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why.startswith("too noisy to judge (over 10%): short: the filler cost 80% then 80%")
    assert "varies by 28%" in v.why
    # a split deeper than twice the spread is no noise: an answer cache's jumpy answers fail
    cache = look("timed", steady) + look("confirm", [x / 100 for x in jumpy])
    assert benchmark_detection({"short": cache}, SPEC).result is RuleResult.FAIL


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
