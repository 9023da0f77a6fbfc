"""How each of the grader's two quality clients reads a reply: an answer, a retry, or its end.

The organisers' ``run_quality_local.py`` reaches the server through two clients
with different failure behaviour (spec: Quality), and harness predicts the
grader's number only if it reads replies the same way:

- the grader's own LM (IFEval, GPQA): ``json.loads`` of the body, then
  ``r.get("choices", [{}])[0]`` and ``.get("message", {}).get("content", "")``
  (or ``.get("text", "")`` for a raw completion). A missing ``choices`` key is
  the empty answer at once; an empty or malformed ``choices`` raises inside the
  attempt, so it is retried; a JSON ``null`` content is returned as ``None`` and
  crashes the script later (no score at all).
- lm-eval's ``local-chat-completions`` (MMLU-Pro, GSM8K): any non-2xx status,
  transport error or non-JSON body fails the attempt; after the last attempt
  lm-eval re-raises and the run dies. A reply it cannot parse is the empty
  answer; a null content is the empty answer; a reply that yields other than
  exactly one answer trips lm-eval's ``zip(..., strict=True)`` and ends the run.

These are pure functions over the parsed JSON body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

ClientStyle = Literal["grader-lm", "lm-eval"]

THINK_BLOCK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)

GRADER_DIES = "the grader's run would abort here (no score)"


@dataclass(frozen=True)
class Reading:
    """One attempt's reply as the grader's client reads it."""

    text: str = ""
    failed: str | None = None  # this attempt fails: the client retries
    abort: str | None = None  # the grader's script dies on this answer


def read_grader_lm(obj: Any, *, raw: bool) -> Reading:
    """The grader's own LM: ``raw`` is the thinking-OFF completion branch (``prompt`` body)."""
    if not isinstance(obj, dict):
        return Reading(failed="reply JSON is not an object")
    if "choices" not in obj:
        return Reading("")  # the default [{}] gives "" without an error: no retry
    choices = obj["choices"]
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return Reading(failed="reply has empty or malformed choices")
    first = choices[0]
    if raw:
        text = first.get("text", "")
        if not isinstance(text, str):
            return Reading(failed="choices[0].text is not a string")
        return Reading(THINK_BLOCK.sub("", text).strip())
    message = first.get("message", {})
    if not isinstance(message, dict):
        return Reading(failed="choices[0].message is not an object")
    content = message.get("content", "")
    if content is None:
        return Reading("", abort=f"message.content is JSON null: {GRADER_DIES}")
    if not isinstance(content, str):
        return Reading("", abort=f"message.content is not a string: {GRADER_DIES}")
    return Reading(content)


def _answers_of(out: Any) -> list[Any]:
    try:
        choices = out["choices"]
        answers: list[Any] = [None] * len(choices)
        for choice in choices:
            answers[choice["index"]] = choice["message"]["content"]
    except (KeyError, TypeError, IndexError, AttributeError):
        return [""]  # lm-eval logs "Could not parse generations" and answers ""
    return answers


def read_lm_eval(obj: Any) -> Reading:
    """lm-eval 0.4.11 ``LocalChatCompletion.parse_generations`` and the count check after it."""
    outputs = obj if isinstance(obj, list) else [obj]
    answers = [a for out in outputs for a in _answers_of(out)]
    if len(answers) != 1:
        return Reading(
            "", abort=f"the reply gives {len(answers)} answers for 1 request: {GRADER_DIES}"
        )
    answer = answers[0]
    return Reading(answer if isinstance(answer, str) else "")


def read_reply(style: ClientStyle, obj: Any, *, raw: bool) -> Reading:
    return read_lm_eval(obj) if style == "lm-eval" else read_grader_lm(obj, raw=raw)
