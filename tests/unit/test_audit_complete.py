"""complete_outputs over literal checks (harness/audit/complete.py): an answer the model
ended passes, an answer the server cut fails on two looks, answers that ran to max_tokens
are no evidence."""

from __future__ import annotations

from typing import Any

from harness.audit.complete import SEAM_TOKENS, complete_outputs, finished
from harness.audit.continuation import Continuation
from harness.audit.report import RuleResult


def check(answer: int, finish: str | None, continued: int | None, c_finish: str | None,
          **extra: Any) -> Continuation:  # fmt: skip
    return Continuation(bucket="short", max_tokens=128, answer_tokens=answer,
                        answer_finish=finish, continued_tokens=continued,
                        continued_finish=c_finish, continued_text="\nThe quick" if continued
                        else "", requests=1 if continued is None else 2, **extra)  # fmt: skip


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


def test_a_server_that_stops_at_a_fixed_count_fails_on_the_second_look() -> None:
    first, second = check(41, "stop", 41, "stop"), check(41, "stop", 41, "stop", attempt=2)
    # one look is not enough to fail (a nondeterministic moment could look like it)
    assert complete_outputs([first]).result is RuleResult.INCONCLUSIVE
    v = complete_outputs([first, second])
    assert v.result is RuleResult.FAIL and v.blocking
    assert v.why.startswith("the server cut the answer, the model had not ended it (twice): ")
    assert "short: the answer ended at 41 of 128 tokens ('stop')" in v.why
    assert "brought 41 more ('stop'" in v.why
    # the second look finds it finished: not a failure
    assert complete_outputs([first, check(41, "stop", 1, "stop")]).result is RuleResult.PASS


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
    assert v.evidence["short"] == [{"answer": "None of 128 tokens, None", "continued": None,
                                    "error": "HTTP 500"}]  # fmt: skip


def test_one_finished_bucket_passes_beside_one_that_ran_to_max_tokens() -> None:
    ran = Continuation(bucket="long", max_tokens=256, answer_tokens=256,
                       answer_finish="length", requests=1)  # fmt: skip
    assert complete_outputs([ran, check(42, "stop", 1, "stop")]).result is RuleResult.PASS
