"""Parse and validate request bodies the way vLLM does; bad input raises BadRequest (400)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from harness.chat_template import Message, UnrenderableChat, render_qwen35
from harness.simulate.images import VISION_BLOCK, ImagePartError, parse_image_part

Kind = Literal["completion", "chat"]


class BadRequest(Exception):
    """A client error: becomes a 400 with an OpenAI-style JSON error body."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass
class ParsedRequest:
    kind: Kind
    model: str | None
    prompt_text: str  # completion prompt, or the chat rendered with the ChatML template
    prompt_ids: list[int] | None  # when the client sent token ids
    max_tokens: int | None
    stream: bool
    include_usage: bool
    greedy: bool
    thinking: bool
    ignore_eos: bool
    min_tokens: int
    return_token_ids: bool = False  # vLLM's: choices[0].token_ids in a non-streamed answer


def parse_json(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BadRequest(f"request body is not valid JSON: {err}") from None
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    return body


def _opt_int(body: dict[str, Any], name: str, *, minimum: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{name} must be an integer, got {type(value).__name__}", name)
    if value < minimum:
        raise BadRequest(f"{name} must be at least {minimum}, got {value}", name)
    return value


def _opt_bool(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise BadRequest(f"{name} must be a boolean", name)
    return value


def render_chat(messages: list[Message], *, thinking: bool) -> str:
    """Qwen3.5's chat template (harness/chat_template.py); what it refuses is a 400, as
    vLLM answers when a template raises."""
    try:
        return render_qwen35(messages, enable_thinking=thinking)
    except UnrenderableChat as err:
        raise BadRequest(str(err), "messages") from None


def _messages(value: Any) -> list[Message]:
    if not isinstance(value, list) or not value:
        raise BadRequest("messages must be a non-empty list", "messages")
    out: list[Message] = []
    for i, m in enumerate(value):
        if not isinstance(m, dict):
            raise BadRequest(f"messages[{i}] must be an object", "messages")
        role = m.get("role")
        if not isinstance(role, str):
            raise BadRequest(f"messages[{i}].role must be a string", "messages")
        content = m.get("content")
        if content is None:
            text = ""
        elif isinstance(content, str):
            text = content
        elif isinstance(content, list):
            texts = []
            for part in content:
                if not isinstance(part, dict) or not isinstance(part.get("text", ""), str):
                    raise BadRequest(f"messages[{i}].content parts must be objects", "messages")
                if part.get("type") == "image_url":
                    try:
                        parse_image_part(part)
                    except ImagePartError as err:
                        raise BadRequest(f"messages[{i}]: {err}", "messages") from None
                    texts.append(VISION_BLOCK)
                    continue
                texts.append(part.get("text", ""))
            text = "".join(texts)
        else:
            raise BadRequest(f"messages[{i}].content must be a string or a list", "messages")
        out.append({"role": role, "content": text})
    return out


def _prompt(value: Any) -> tuple[str, list[int] | None]:
    """vLLM accepts a string, a list of one string, token ids, or a list of one id list."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str | list):
        value = value[0]
    if isinstance(value, str):
        return value, None
    if (
        isinstance(value, list)
        and value
        and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in value)
    ):
        return "", list(value)
    if isinstance(value, list) and len(value) > 1:
        raise BadRequest("the simulator answers one prompt per request", "prompt")
    raise BadRequest("prompt must be a string or a list of token ids", "prompt")


def parse_request(body: dict[str, Any], kind: Kind) -> ParsedRequest:
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise BadRequest("model must be a string", "model")
    stream = _opt_bool(body, "stream")
    opts = body.get("stream_options")
    if opts is not None and not isinstance(opts, dict):
        raise BadRequest("stream_options must be an object", "stream_options")
    if opts and not stream:  # vLLM's own check and message
        raise BadRequest("Stream options can only be defined when `stream=True`.", "stream_options")
    include_usage = bool(opts and opts.get("include_usage"))
    temperature = body.get("temperature", 1.0)
    if temperature is None:
        temperature = 1.0
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) or temperature < 0:
        raise BadRequest("temperature must be a number >= 0", "temperature")
    kwargs = body.get("chat_template_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise BadRequest("chat_template_kwargs must be an object", "chat_template_kwargs")
    thinking = body.get("thinking") is True or bool(
        kwargs and kwargs.get("enable_thinking") is True
    )
    max_tokens = _opt_int(body, "max_tokens", minimum=1)
    if kind == "chat":
        mct = _opt_int(body, "max_completion_tokens", minimum=1)
        max_tokens = mct if mct is not None else max_tokens
        messages = _messages(body.get("messages"))
        prompt_text, prompt_ids = render_chat(messages, thinking=thinking), None
    else:
        if "prompt" not in body:
            raise BadRequest("prompt is required", "prompt")
        prompt_text, prompt_ids = _prompt(body["prompt"])
        if prompt_ids is None and prompt_text == "":
            raise BadRequest(
                "Either prompt or prompt_embeds must be provided and non-empty.", "prompt"
            )
        thinking = False  # no chat template on completions: the flag changes nothing
    return ParsedRequest(
        kind=kind,
        model=model,
        prompt_text=prompt_text,
        prompt_ids=prompt_ids,
        max_tokens=max_tokens,
        stream=stream,
        include_usage=include_usage,
        greedy=float(temperature) == 0.0,
        thinking=thinking,
        ignore_eos=_opt_bool(body, "ignore_eos"),
        min_tokens=_opt_int(body, "min_tokens", minimum=0) or 0,
        return_token_ids=_opt_bool(body, "return_token_ids"),
    )
