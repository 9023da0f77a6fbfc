"""Our ChatML template, rendered the way transformers/vLLM render chat templates."""

from __future__ import annotations

from typing import Any

import jinja2.ext
import pytest
from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from reference_server.recipes import CHAT_TEMPLATE
from tests.fixtures.qwen35_chat import CASES, REFUSED, ChatCase


def raise_exception(message: str) -> None:
    raise TemplateError(message)


def render(
    messages: list[dict[str, Any]], add_generation_prompt: bool = True, **kwargs: Any
) -> str:
    # transformers compiles chat templates with exactly these settings
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    env.globals["raise_exception"] = raise_exception
    template = env.from_string(CHAT_TEMPLATE.read_text())
    return template.render(messages=messages, add_generation_prompt=add_generation_prompt, **kwargs)


USER = [{"role": "user", "content": "Hi"}]
OFF = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
ON = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n"


def test_default_is_thinking_off_with_an_empty_think_block() -> None:
    assert render(USER) == OFF


@pytest.mark.parametrize(("flag", "expected"), [(False, OFF), (True, ON), (None, OFF)])
def test_enable_thinking(flag: bool | None, expected: str) -> None:
    assert render(USER, enable_thinking=flag) == expected


def test_system_and_history_keep_only_the_answer_of_earlier_turns() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "<think>\nadd them\n</think>\n\n4"},
        {"role": "user", "content": "3+3?"},
    ]
    assert render(messages) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n"
        "<|im_start|>user\n2+2?<|im_end|>\n"
        "<|im_start|>assistant\n4<|im_end|>\n"
        "<|im_start|>user\n3+3?<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    )


def test_content_parts_and_no_generation_prompt() -> None:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [{"type": "text", "text": " a"}, {"type": "text", "text": "b "}],
        },
        {"role": "assistant", "content": None},
    ]
    assert render(messages, add_generation_prompt=False) == (
        "<|im_start|>user\nab<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<|im_end|>\n"
    )


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_renders_what_qwen35s_template_renders(case: ChatCase) -> None:
    # the server's usage.prompt_tokens then agrees with harness's count (issue 35)
    got = render(
        case.messages,
        add_generation_prompt=case.add_generation_prompt,
        enable_thinking=case.enable_thinking,
    )
    assert got == case.expected


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_raises_where_qwen35s_template_raises(name: str) -> None:
    with pytest.raises(TemplateError):
        render(REFUSED[name])


def test_lm_eval_message_with_extra_type_field() -> None:
    # lm-eval 0.4.11 sends {"role", "content", "type": "text"} (its bug #3270)
    assert render([{"role": "user", "content": "Hi", "type": "text"}]) == OFF
