"""The pure rules of harness check, with literal bodies and numbers."""

from __future__ import annotations

from typing import Any

from harness.conformance.rules import (
    chat_shape,
    completion_shape,
    first_difference,
    json_error,
    latency_spread,
    think_form,
    think_leak,
    usage_findings,
)

USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def chat(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "Qwen/Qwen3.5-4B",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Paris."},
                "finish_reason": "stop",
            }
        ],
        "usage": dict(USAGE),
    }
    body.update(over)
    return body


def test_chat_shape_accepts_the_openai_shape() -> None:
    assert chat_shape(chat()) == ([], [])


def test_chat_shape_names_each_missing_field() -> None:
    errors, _ = chat_shape(chat(id=None, object="text_completion", usage={"prompt_tokens": 1}))
    assert "no id" in errors
    assert "object is 'text_completion', expected chat.completion" in errors
    assert "usage.completion_tokens is not an integer" in errors
    assert "usage.total_tokens is not an integer" in errors


def test_chat_shape_rejects_a_completion_body_and_bad_finish_reason() -> None:
    body = chat(choices=[{"text": "Paris.", "finish_reason": "eos"}])
    errors, _ = chat_shape(body)
    assert errors[0] == "choices[0].message is missing (is this a completion body?)"
    assert "finish_reason is 'eos', expected stop or length" in errors


def test_chat_shape_of_non_objects() -> None:
    assert chat_shape([1, 2]) == (["the body is not a JSON object"], [])
    assert chat_shape({"choices": []}) == (["no choices[0]"], [])


def test_completion_shape_needs_only_text_and_warns_on_the_rest() -> None:
    ok = {
        "id": "cmpl-1",
        "object": "text_completion",
        "created": 1,
        "model": "m",
        "choices": [{"text": " Paris", "finish_reason": "length"}],
        "usage": dict(USAGE),
    }
    assert completion_shape(ok) == ([], [])
    errors, lesser = completion_shape({"choices": [{"text": " Paris"}]})
    assert errors == []
    assert "no id" in lesser and "no usage object" in lesser and "finish_reason is None" in lesser
    errors, _ = completion_shape({"choices": [{"message": {"content": "x"}}]})
    assert errors == ["choices[0].text is not a string (it answered a chat body?)"]


def test_usage_within_tolerance_passes() -> None:
    found = usage_findings(
        prompt_usage=21,
        completion_usage=16,
        total_usage=37,
        prompt_client=19,
        completion_client=17,
        tolerance=4,
    )
    assert found.ok and found.problems == []


def test_usage_outside_tolerance_and_wrong_total() -> None:
    found = usage_findings(
        prompt_usage=30,
        completion_usage=21,
        total_usage=50,
        prompt_client=19,
        completion_client=16,
        tolerance=4,
    )
    assert not found.ok
    assert found.problems == [
        "prompt_tokens 30 vs 19 counted by the client (±4)",
        "completion_tokens 21 vs 16 in the re-tokenised output (±4)",
        "total_tokens 50 != prompt 30 + completion 21",
    ]


def test_usage_missing_fields() -> None:
    found = usage_findings(
        prompt_usage=3,
        completion_usage=None,
        total_usage=None,
        prompt_client=3,
        completion_client=1,
        tolerance=0,
    )
    assert found.problems == ["usage lacks completion_tokens, total_tokens"]


def test_think_form_names_where_the_trace_is() -> None:
    assert (
        think_form("<think>hm</think>42", "", "<think>", "</think>")
        == "<think>…</think> in content"
    )
    assert think_form("hm</think>42", "", "<think>", "</think>") == (
        "</think> in content (the template opened <think>)"
    )
    assert think_form("42", "let me see", "<think>", "</think>") == "reasoning field"
    assert think_form("42", "  ", "<think>", "</think>") is None


def test_think_leak() -> None:
    assert think_leak("42", "", "<think>", "</think>") is None
    assert (
        think_leak("<think>\n\n</think>42", "", "<think>", "</think>") == "content contains <think>"
    )
    assert think_leak("x</think>42", "", "<think>", "</think>") == "content contains </think>"
    assert think_leak("", "42", "<think>", "</think>") == (
        "the answer went to a reasoning field (the grader reads message.content)"
    )


def test_first_difference() -> None:
    assert first_difference("abc", "abc") == ""
    assert first_difference("abcd", "abXd", context=1) == "differ at char 2: 'bc' vs 'bX'"
    assert first_difference("ab", "abc", context=1) == "differ at char 2: 'b' vs 'bc'"


def test_latency_spread() -> None:
    assert latency_spread([]) == {}
    assert latency_spread([100.0]) == {
        "min_ms": 100.0,
        "p50_ms": 100.0,
        "p90_ms": 100.0,
        "max_ms": 100.0,
        "max_over_min": 1.0,
    }
    spread = latency_spread([100.0, 200.0, 300.0, 400.0, 500.0])
    assert spread["p50_ms"] == 300.0
    assert spread["p90_ms"] == 460.0
    assert spread["max_over_min"] == 5.0


def test_json_error_shapes() -> None:
    assert json_error(b'{"error": {"message": "bad max_tokens", "code": 400}}') == "bad max_tokens"
    assert json_error(b'{"detail": "JSON decode error"}') == "JSON decode error"
    assert json_error(b'{"message": "nope"}') == "nope"
    assert json_error(b"Internal Server Error") is None
    assert json_error(b'{"ok": true}') is None
    assert json_error(b"[1]") is None
