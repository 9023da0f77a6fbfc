"""complete_outputs over literal checks (harness/audit/continuations/rule.py): an answer the model
ended passes (continued, it ends at once; or, after a near-tie run-on, continued from inside
it, it ends in its text); an answer the server cut fails (continued from inside, its end
moves with the start); answers that ran to max_tokens are no evidence."""

from __future__ import annotations

from typing import Any

from harness.audit.continuations.record import Continuation
from harness.audit.continuations.rule import (
    SEAM_TOKENS,
    complete_outputs,
    finished,
    laws,
    probe_starts,
)
from harness.rule_report import RuleResult


def check(answer: int, finish: str | None, continued: int | None, c_finish: str | None,
          **extra: Any) -> Continuation:  # fmt: skip
    return Continuation(bucket="short", max_tokens=128, answer_tokens=answer,
                        answer_finish=finish, continued_tokens=continued,
                        continued_finish=c_finish, continued_text="\nThe quick" if continued
                        else "", requests=1 if continued is None else 2, **extra)  # fmt: skip


def ran_on(text_tokens: int, run_on: int, finish: str = "stop") -> Continuation:
    """An answer of ``text_tokens`` (+ the EOS vLLM counts) whose continuation after its
    end brought ``run_on`` text tokens (+ its EOS)."""
    return check(text_tokens + 1, "stop", run_on + 1, finish, start=text_tokens,
                 end=text_tokens + run_on)  # fmt: skip


def probe(whole: Continuation, start: int, past: int, attempt: int = 2) -> Continuation:
    """A probe from inside ``whole``'s answer, after ``start`` tokens, that ended ``past``
    tokens past the answer's end."""
    end = (whole.start or 0) + past
    return whole.model_copy(update={"attempt": attempt, "start": start, "end": end,
                                    "continued_tokens": end - start + 1, "requests": 1})  # fmt: skip


def probed(whole: Continuation, pasts: dict[int, int]) -> list[Continuation]:
    assert sorted(pasts) == probe_starts(whole)
    return [whole] + [probe(whole, k, d, i) for i, (k, d) in enumerate(pasts.items(), 2)]


def test_the_reference_servers_short_answer_is_finished() -> None:
    # the CPU reference server: 41 text tokens + the EOS vLLM counts, then the EOS alone
    honest = check(42, "stop", 1, "stop")
    assert finished(honest) is True
    v = complete_outputs([honest])
    assert v.result is RuleResult.PASS and not v.blocking
    assert v.evidence["short"] == [
        {"answer": "42 of 128 tokens, stop", "continued": "1 tokens, stop"}
    ]


def test_the_seam_allows_a_couple_of_tokens_and_no_more() -> None:
    assert finished(check(41, "stop", 0, "stop")) is True  # a server that counts no EOS
    assert finished(check(41, "stop", 1 + SEAM_TOKENS, "stop")) is True
    assert finished(check(41, "stop", 2 + SEAM_TOKENS, "stop")) is False
    assert finished(check(41, "stop", 16, "length")) is False  # the model goes on
    assert finished(check(41, "stop", 1, "length")) is False
    # a server that reports no finish reason is judged by its token counts alone
    assert finished(check(41, None, 1, None)) is True
    assert finished(check(41, None, 16, None)) is False
    # a context limit's "length" before max_tokens is the server's honest cut
    assert finished(check(60, "length", None, None)) is None


def test_the_probes_start_at_quarters_of_the_run_on_and_of_the_answer() -> None:
    # llama.cpp's SmolLM2: 21 tokens, then 10 more continued
    whole = ran_on(21, 10)
    assert [(law.slope, law.starts) for law in laws(21, 10)] == [
        (1.0, (2, 5, 8)), (10 / 21, (5, 10, 16))
    ]  # fmt: skip
    assert probe_starts(whole) == [2, 5, 8, 10, 16]
    # a run-on as long as the answer: both laws are the fixed count's
    assert probe_starts(ran_on(20, 20)) == [5, 10, 15]


def test_a_near_tie_that_runs_on_passes_when_its_end_stays_in_the_text() -> None:
    """What llama.cpp did (issue 46): 21 tokens and EOS; continued, 10 more and EOS. From
    inside, the rest of the answer and the same end: nothing was cut."""
    whole = ran_on(21, 10)
    v = complete_outputs(probed(whole, {2: 0, 5: 0, 8: 0, 10: 0, 16: 0}))
    assert v.result is RuleResult.PASS
    assert "ran on 10 tokens ('stop'), yet continued from inside it, it ends where the " \
        "answer ended or where that run ended (after 2: +0, after 5: +0, after 8: +0" in v.why  # fmt: skip
    assert v.evidence["short"][1] == {"answer": "22 of 128 tokens, stop",
                                      "continued": "20 tokens, stop", "start": 2, "end": 21}  # fmt: skip
    # the probes may run on the same way, within the seam: still the text's end
    ends = {2: 10, 5: 11, 8: -2, 10: 0, 16: 10}
    assert complete_outputs(probed(whole, ends)).result is RuleResult.PASS
    # the first look alone (no probe answered yet) is not a verdict
    assert complete_outputs([whole]).result is RuleResult.INCONCLUSIVE


def test_a_cut_at_a_fixed_count_fails_its_end_moves_with_the_start() -> None:
    # --stop-early-at 20 with a 41-token model: 20, then 20 more continued, and from
    # inside, 20 after each start
    whole = ran_on(20, 20)
    v = complete_outputs(probed(whole, {5: 5, 10: 10, 15: 15}))
    assert v.result is RuleResult.FAIL and v.blocking
    assert v.why == (
        "the server cut the answer, the model had not ended it: short: the answer ended at 21 "
        "of 128 tokens ('stop'); continued after it, the prompt ran on 20 tokens ('stop'); "
        "continued from inside it, each end moved with the start (after 5: +5, after 10: +10, "
        "after 15: +15 tokens past the answer's end): a cut at a fixed count"
    )
    # within the seam of the law's place: still the cut
    assert complete_outputs(probed(whole, {5: 7, 10: 8, 15: 17})).result is RuleResult.FAIL
    # a probe that ran to its max_tokens did not end where the law puts it: no cut's law
    looped = probed(whole, {5: 5, 10: 10, 15: 15})
    looped[-1] = looped[-1].model_copy(update={"continued_finish": "length"})
    assert complete_outputs(looped).result is RuleResult.INCONCLUSIVE
    # the answer's measured end is off by its own seam, which moves every probe alike: 3
    # past each place, or one 3 off and two on it, is still the cut (an offset ≤ 1.5 seams)
    assert complete_outputs(probed(whole, {5: 8, 10: 13, 15: 18})).result is RuleResult.FAIL
    assert complete_outputs(probed(whole, {5: 8, 10: 10, 15: 15})).result is RuleResult.FAIL
    # one probe off the law (5 from its place): no common offset puts all three within the
    # seam of it: not a cut's law, not the text's end
    v = complete_outputs(probed(whole, {5: 10, 10: 10, 15: 15}))
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert "a near-tie end of sequence cannot be told from a cut here" in v.why


def test_a_cut_in_proportion_to_the_natural_length_fails() -> None:
    """Its ends move by a share of the start: the share is fitted to the probes (0.196
    here), which must move the ends by more than 1.5 seams across them."""
    # the model would write 60 tokens; the server stops each answer at 80 % of what is left:
    # 48, then 0.8 × 12 = 10 continued; from inside after k, 0.8 × (60 − k)
    whole = ran_on(48, 10)
    pasts = {k: k + round(0.8 * (60 - k)) - 48 for k in probe_starts(whole)}
    assert pasts == {2: 0, 5: 1, 8: 2, 12: 2, 24: 5, 36: 7}
    v = complete_outputs(probed(whole, pasts))
    assert v.result is RuleResult.FAIL and v.why.endswith("a cut in proportion")
    # every end 3 past the answer's: an offset that does not move with the start, no law
    level = {k: 3 for k in pasts}
    assert complete_outputs(probed(whole, level)).result is RuleResult.INCONCLUSIVE


def test_a_near_tie_with_noisy_ends_is_never_failed() -> None:
    """Honest checks that the law before 11-29's fix failed (bench/audit_complete.py, 20,000
    trials: 0.155 % with ±2 tokens of numerics at every end, 0.080 % with a near tie of
    q 50 %): three of the probes sat near a line, yet the others did not. A cut applies its
    law to every continuation, so every probe must end where it puts it (or at the run-on's
    end, where the model ended before the cut came)."""
    noisy = [  # (answer, run-on, the probes' ends past the answer's end)
        (77, 9, {2: 3, 4: 1, 7: 3, 19: 4, 38: 4, 58: 9}),
        (64, 9, {2: 3, 4: -1, 7: -1, 16: 1, 32: 3, 48: 8}),
    ]
    near_tie = [  # the run-on's own ties (sentence ends) between the two text ends
        (70, 16, {4: 2, 8: 9, 12: 10, 18: 42, 35: 30, 52: 2}),
        (77, 15, {4: 0, 8: 14, 11: 14, 19: 6, 38: 12, 58: 14}),
    ]
    for answer, run_on, pasts in noisy + near_tie:
        v = complete_outputs(probed(ran_on(answer, run_on), pasts))
        assert v.result is RuleResult.INCONCLUSIVE and not v.by_design, (answer, v.why)
        assert "a near-tie end of sequence cannot be told from a cut here" in v.why
    # the proportion's three probes alone on its line, the other three at the text's start
    # (0 past it, where the law puts ~0.2 × 5): the same cut, caught
    whole = ran_on(48, 10)
    assert complete_outputs(probed(whole, {2: 0, 5: 1, 8: 2, 12: 2, 24: 5, 36: 7})).result \
        is RuleResult.FAIL  # fmt: skip


def test_a_run_on_too_short_to_tell_is_inconclusive() -> None:
    # 4 tokens past a 41-token answer: a cut would put no probe's end 3 off both text ends
    whole = ran_on(41, 4)
    v = complete_outputs(probed(whole, {1: 0, 2: 0, 3: 0, 10: 0, 20: 0, 31: 0}))
    assert v.result is RuleResult.INCONCLUSIVE


def test_answers_that_run_to_max_tokens_are_no_evidence() -> None:
    for ran in (check(128, "length", None, None), check(128, "stop", None, None)):
        assert finished(ran) is None
        v = complete_outputs([ran])
        assert v.result is RuleResult.INCONCLUSIVE and v.by_design
        assert "ran to max_tokens" in v.why
    assert complete_outputs([]).by_design


def test_a_failed_request_is_inconclusive_not_by_design() -> None:
    err = Continuation(bucket="short", max_tokens=128, error="HTTP 500", requests=1)
    v = complete_outputs([err])
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why == "the answer or its continuation failed: nothing to judge (HTTP 500)"
    assert v.evidence["short"] == [{"answer": "None of 128 tokens, None", "continued": None,
                                    "error": "HTTP 500"}]  # fmt: skip
    # a failed probe: nothing to judge either
    whole = ran_on(20, 20)
    broken = probe(whole, 5, 5).model_copy(update={"error": "HTTP 500", "end": None})
    rest = [probe(whole, 10, 10, 3), probe(whole, 15, 15, 4)]
    assert complete_outputs([whole, broken, *rest]).result is RuleResult.INCONCLUSIVE


def test_one_finished_bucket_passes_beside_one_that_ran_to_max_tokens() -> None:
    ran = Continuation(bucket="long", max_tokens=256, answer_tokens=256,
                       answer_finish="length", requests=1)  # fmt: skip
    assert complete_outputs([ran, check(42, "stop", 1, "stop")]).result is RuleResult.PASS
