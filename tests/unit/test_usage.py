"""The one usage rule (harness/usage.py), with literal numbers: true for vLLM, and the probe."""

from __future__ import annotations

import pytest

from harness.throughput.report import RequestRow
from harness.usage import (
    UsageCheck,
    UsageVerdict,
    ids_from_reply,
    judge_probe,
    judge_usage,
    probe_fields,
    probe_flags,
    unsettled_line,
)

A, B, U, N = UsageVerdict.AGREE, UsageVerdict.BELOW, UsageVerdict.UNSETTLED, UsageVerdict.UNKNOWN


@pytest.mark.parametrize(
    ("text", "usage", "finish", "verdict"),
    [
        (128, 128, "length", A),
        (41, 42, "stop", A),  # the reference server's short answer: vLLM counts the EOS
        (41, 42, "length", U),  # no EOS ends a "length" answer: the text cannot explain +1
        (41, 43, "stop", U),
        (2, 256, "length", U),  # "\nThe" + 254 skipped special tokens, or inflation
        (100, 96, "length", U),  # re-tokenisation drift within the tolerance
        (100, 95, "length", B),  # below the text by more than the tolerance: proven wrong
        (100, 95, "stop", B),
        (None, 5, "stop", N),
        (5, None, "stop", N),
    ],
)
def test_judge_usage(text, usage, finish, verdict):
    assert judge_usage(text, usage, finish, 4) is verdict


def test_tolerance_zero_leaves_only_exact_and_eos():
    assert judge_usage(10, 9, "length", 0) is B
    assert judge_usage(10, 11, "stop", 0) is A


def row(out: int, server: int, finish: str = "length") -> RequestRow:
    return RequestRow(
        level=1,
        phase="timed",
        index=0,
        kind="random",
        ok=True,
        output_tokens=out,
        server_output_tokens=server,
        finish_reason=finish,
    )


def test_unsettled_line_is_one_line_over_all_groups():
    line = unsettled_line(
        [("official long", [row(2, 256), row(3, 256), row(10, 10)]), ("strict short", [row(5, 8)])],
        4,
        "HOW",
    )
    assert "\n" not in line
    assert "2 official long (+253 to +254), 1 strict short (+3) tokens" in line
    assert line.endswith("the text cannot tell which. HOW")


def test_probe_fields_and_ids_from_vllm_and_logprob_replies():
    assert probe_fields(chat=False) == {"return_token_ids": True}
    assert probe_fields(chat=True) == {"return_token_ids": True}
    # the fallback asks for logprobs alone (vLLM refuses a -inf logprob with a 400)
    assert probe_fields(chat=False, logprobs=True) == {"logprobs": 0}
    assert probe_fields(chat=True, logprobs=True) == {"logprobs": True}
    assert ids_from_reply({"choices": [{"token_ids": [5, 6, 7]}]}) == ([5, 6, 7], "token_ids")
    completion_lp = {"choices": [{"logprobs": {"tokens": ["a", "b"], "token_logprobs": [0, 0]}}]}
    assert ids_from_reply(completion_lp) == ([-1, -1], "logprobs")
    chat_lp = {"choices": [{"logprobs": {"content": [{"token": "a"}]}}]}
    assert ids_from_reply(chat_lp) == ([-1], "logprobs")
    for reply in (None, {}, {"choices": []}, {"choices": [{"text": "x", "logprobs": None}]}):
        assert ids_from_reply(reply) == (None, None)
    assert ids_from_reply({"choices": [{"token_ids": [1, True]}]}) == (None, None)


def test_judge_probe_and_the_only_flag_it_raises():
    assert judge_probe(256, 256) == "agrees"
    assert judge_probe(259, 256) == "disagrees"
    assert judge_probe(256, None) == "unsupported"
    assert judge_probe(None, 256) == "failed"
    checks = [
        UsageCheck(
            mode="official",
            name=n,
            endpoint="/v1/completions",
            prompt="p",
            result=r,
            source="token_ids",
            usage_tokens=u,
            id_tokens=i,
        )
        for n, r, u, i in (("short", "agrees", 42, 42), ("long", "disagrees", 259, 256))
    ]
    [flag] = probe_flags(checks, "latency")
    assert flag.source == "latency" and "usage 259 ≠ 256 generated tokens listed" in flag.text
    assert "usage is truthful" in checks[0].line()
