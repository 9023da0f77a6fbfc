"""How the grader's two quality clients read replies (spec: Quality), and the rounded verdict."""

from __future__ import annotations

import pytest

from harness.quality.grader_reply import GRADER_DIES, read_grader_lm, read_lm_eval
from harness.quality.report import BenchmarkResult


def chat(content: object) -> dict[str, object]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


def test_grader_lm_reads_content_as_returned():
    r = read_grader_lm(chat(" <think>x</think> A "), raw=False)
    assert (r.text, r.failed, r.abort) == (" <think>x</think> A ", None, None)


def test_grader_lm_raw_branch_strips_think_and_spaces():
    r = read_grader_lm({"choices": [{"text": "<think>a\nb</think>\n  42 \n"}]}, raw=True)
    assert r.text == "42" and r.failed is None


@pytest.mark.parametrize(
    ("obj", "raw", "text"),
    [
        ({}, False, ""),  # no choices key: "" at once, no retry
        ({"choices": [{}]}, False, ""),  # no message
        ({"choices": [{"message": {}}]}, False, ""),  # no content
        ({"choices": [{}]}, True, ""),  # raw: no text
    ],
)
def test_grader_lm_empty_without_retry(obj, raw, text):
    r = read_grader_lm(obj, raw=raw)
    assert r.text == text and r.failed is None and r.abort is None


@pytest.mark.parametrize(
    ("obj", "raw"),
    [
        ({"choices": []}, False),  # IndexError inside the attempt: retried
        ({"choices": None}, False),
        ({"choices": ["x"]}, False),
        ({"choices": [{"message": "x"}]}, False),
        ({"choices": [{"text": None}]}, True),  # re.sub on None
        ([1, 2], False),
    ],
)
def test_grader_lm_failed_attempts(obj, raw):
    r = read_grader_lm(obj, raw=raw)
    assert r.failed is not None and r.abort is None


def test_grader_lm_null_content_kills_the_grader():
    r = read_grader_lm(chat(None), raw=False)
    assert r.text == "" and r.failed is None and r.abort is not None and GRADER_DIES in r.abort


def test_lm_eval_parse_generations():
    assert read_lm_eval(chat("B")).text == "B"
    assert read_lm_eval(chat(None)) == read_lm_eval({})  # both ""
    assert read_lm_eval({}).text == "" and read_lm_eval({}).abort is None
    assert read_lm_eval({"choices": [{"message": {"content": "x"}}]}).text == ""  # no index
    empty = read_lm_eval({"choices": []})
    assert empty.abort is not None and "0 answers" in empty.abort  # strict zip fails
    two = {
        "choices": [
            {"index": 0, "message": {"content": "a"}},
            {"index": 1, "message": {"content": "b"}},
        ]
    }
    assert read_lm_eval(two).abort is not None


def _result(threshold: float = 0.621) -> BenchmarkResult:
    return BenchmarkResult(name="m", title="M", task="t", metric="x", threshold=threshold)


def test_rounded_score_is_judged_raw_is_kept():
    r = _result()
    r.set_score(0.62096)
    assert r.rounded_score == 0.621 and r.score == 0.62096 and r.passed is True
    r.set_score(0.62049)
    assert r.rounded_score == 0.6205 and r.passed is False


def test_grader_abort_fails_a_passing_score():
    r = _result()
    r.grader_abort = "message.content is JSON null: " + GRADER_DIES
    r.set_score(0.9)
    assert r.score == 0.9 and r.passed is False


def test_the_gate_fails_where_the_grader_dies():
    from harness.quality.gate_rules import quality_rules
    from harness.quality.report import QualityReport

    r = _result()
    r.grader_abort = "failed 3 times: " + GRADER_DIES
    r.grader_aborts = 1
    r.set_score(0.9)
    reasons, _ = quality_rules(QualityReport(benchmarks=[r]))
    (reason,) = reasons
    assert reason.blocking and GRADER_DIES in reason.text and "0.900" in reason.text
