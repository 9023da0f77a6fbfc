"""Pure rules the checks apply to what the server returned (unit-tested with literals)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.sameness import first_difference as first_difference  # re-exported
from harness.stats.summary import dist

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
FINISH_REASONS = ("stop", "length")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _usage_problems(obj: dict[str, Any]) -> list[str]:
    usage = obj.get("usage")
    if not isinstance(usage, dict):
        return ["no usage object"]
    return [f"usage.{k} is not an integer" for k in USAGE_KEYS if not _is_int(usage.get(k))]


def _head_problems(obj: dict[str, Any], object_names: tuple[str, ...]) -> list[str]:
    problems = []
    if not isinstance(obj.get("id"), str) or not obj.get("id"):
        problems.append("no id")
    if obj.get("object") not in object_names:
        problems.append(f"object is {obj.get('object')!r}, expected {' or '.join(object_names)}")
    if not _is_int(obj.get("created")):
        problems.append("created is not an integer timestamp")
    if not isinstance(obj.get("model"), str):
        problems.append("no model")
    return problems


def _first_choice(obj: dict[str, Any]) -> dict[str, Any] | None:
    choices = obj.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return None


def chat_shape(obj: Any) -> tuple[list[str], list[str]]:
    """(problems the graders trip on, lesser deviations) for a chat completion body.

    The grader reads ``choices[0].message.content``; the Paris contract also names
    ``id``, ``object``, ``created``, ``model``, ``role``, ``finish_reason`` and usage.
    """
    if not isinstance(obj, dict):
        return ["the body is not a JSON object"], []
    choice = _first_choice(obj)
    if choice is None:
        return ["no choices[0]"], []
    errors: list[str] = []
    msg = choice.get("message")
    if not isinstance(msg, dict):
        errors.append("choices[0].message is missing (is this a completion body?)")
    else:
        if not isinstance(msg.get("content"), str):
            errors.append("choices[0].message.content is not a string")
        if msg.get("role") != "assistant":
            errors.append(f"choices[0].message.role is {msg.get('role')!r}, expected 'assistant'")
    if choice.get("finish_reason") not in FINISH_REASONS:
        errors.append(f"finish_reason is {choice.get('finish_reason')!r}, expected stop or length")
    errors += _head_problems(obj, ("chat.completion",))
    errors += _usage_problems(obj)
    return errors, []


def completion_shape(obj: Any) -> tuple[list[str], list[str]]:
    """(problems the graders trip on, lesser deviations) for a text completion body.

    Only ``choices[0].text`` is read by the latency grader; the rest is OpenAI's
    shape and is reported as a warning when missing.
    """
    if not isinstance(obj, dict):
        return ["the body is not a JSON object"], []
    choice = _first_choice(obj)
    if choice is None:
        return ["no choices[0]"], []
    if not isinstance(choice.get("text"), str):
        hint = " (it answered a chat body?)" if isinstance(choice.get("message"), dict) else ""
        return [f"choices[0].text is not a string{hint}"], []
    lesser = _head_problems(obj, ("text_completion",)) + _usage_problems(obj)
    if choice.get("finish_reason") not in FINISH_REASONS:
        lesser.append(f"finish_reason is {choice.get('finish_reason')!r}")
    return [], lesser


@dataclass(frozen=True)
class UsageFinding:
    ok: bool
    problems: list[str]


def usage_findings(
    *,
    prompt_usage: int | None,
    completion_usage: int | None,
    total_usage: int | None,
    prompt_client: int,
    completion_client: int,
    tolerance: int,
) -> UsageFinding:
    """Compare the server's usage with the client's counts: ±``tolerance`` tokens for
    prompt and completion (re-tokenising text is not always the ids generated), and
    ``total == prompt + completion`` exactly."""
    problems: list[str] = []
    if prompt_usage is None or completion_usage is None or total_usage is None:
        missing = [
            k
            for k, v in zip(USAGE_KEYS, (prompt_usage, completion_usage, total_usage), strict=True)
            if v is None
        ]
        return UsageFinding(False, [f"usage lacks {', '.join(missing)}"])
    if abs(prompt_usage - prompt_client) > tolerance:
        problems.append(
            f"prompt_tokens {prompt_usage} vs {prompt_client} counted by the client (±{tolerance})"
        )
    if abs(completion_usage - completion_client) > tolerance:
        problems.append(
            f"completion_tokens {completion_usage} vs {completion_client} in the re-tokenised "
            f"output (±{tolerance})"
        )
    if total_usage != prompt_usage + completion_usage:
        problems.append(
            f"total_tokens {total_usage} != prompt {prompt_usage} + completion {completion_usage}"
        )
    return UsageFinding(not problems, problems)


def think_form(content: str, reasoning: str, open_tag: str, close_tag: str) -> str | None:
    """Where a reasoning trace shows up, or None when none is visible."""
    if reasoning.strip():
        return "reasoning field"
    if open_tag in content:
        return f"{open_tag}…{close_tag} in content"
    if close_tag in content:
        return f"{close_tag} in content (the template opened {open_tag})"
    return None


def think_leak(content: str, reasoning: str, open_tag: str, close_tag: str) -> str | None:
    """With thinking OFF: what leaked, or None."""
    for tag in (open_tag, close_tag):
        if tag in content:
            return f"content contains {tag}"
    if reasoning.strip():
        return "the answer went to a reasoning field (the grader reads message.content)"
    return None


def latency_spread(ms: list[float]) -> dict[str, float]:
    """min / median / p90 / max (ms) and max/min, over successful requests."""
    s = dist(ms)
    if s.n == 0 or s.min is None or s.max is None or s.p50 is None or s.p90 is None:
        return {}
    return {
        "min_ms": round(s.min, 1),
        "p50_ms": round(s.p50, 1),
        "p90_ms": round(s.p90, 1),
        "max_ms": round(s.max, 1),
        "max_over_min": round(s.max / s.min, 2) if s.min > 0 else 0.0,
    }


def json_error(body: bytes) -> str | None:
    """The error message of a JSON error body (OpenAI ``error``, FastAPI ``detail``,
    or a bare ``message``), or None when the body is not such JSON."""
    try:
        obj = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    for key in ("error", "detail", "message"):
        if key in obj:
            value = obj[key]
            if isinstance(value, dict):
                value = value.get("message", value)
            return str(value)
    return None
