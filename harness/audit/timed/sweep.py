"""The audit's three prompts per round for the Paris sweep (docs/audit.md, "Per profile").

- ``repeated``: the grader's first prompt, built by the grader's own procedure
  (harness/graders/paris.py: a window of consecutive regular ids, decode → encode
  rounds), seeded per audit: the prompt the grader sends at every concurrency level;
- ``near_filler``: that prompt with its last token swapped for another regular id drawn
  per round, of the same token length: a prefix cache serves it as it serves the repeated
  prompt, an answer cache keyed on the exact body has never seen it;
- ``unique_head``: a prompt of independent random regular ids of the same length
  (harness's strict prompts): no prefix-cache hit, and not of the grader's shape; the cost
  of a fresh prompt (evidence, not a rule).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from harness.audit.timed.controls import Prompt, rotated
from harness.graders.paris import grader_prompts
from harness.prompts import random_token_prompt
from harness.tokenizer import Tokenizer

TRIES = 32  # draws of a last token before the closest length is kept


def sweep_prompt(tok: Tokenizer, n_tokens: int, *, seed: int, rounds: int) -> str:
    """The grader's first random-token prompt of ``n_tokens``, from a seeded generator (the
    grader's is unseeded: any draw is one it could make)."""
    return grader_prompts(tok, 1, n_tokens, np.random.default_rng(seed), rounds=rounds)[0]


def near_prompt(tok: Tokenizer, base: str, pool: Sequence[int], *, seed: int, index: int) -> str:
    """``base`` with its last token swapped for a regular id drawn for round ``index``, of
    ``base``'s token length (the closest of a few draws when none re-encodes exactly)."""
    rng = random.Random(f"near/{seed}/{index}")
    ids, n = tok.encode(base), tok.count(base)
    best = ""
    for _ in range(TRIES):
        last = rng.choice(pool)
        if ids and last == ids[-1]:
            continue
        text = tok.decode([*ids[:-1], last])
        if text != base and tok.count(text) == n:
            return text
        if text != base and (not best or abs(tok.count(text) - n) < abs(tok.count(best) - n)):
            best = text
    return best


def sweep_round_prompts(
    tok: Tokenizer, base: str, pool: Sequence[int], *, seed: int, index: int
) -> list[Prompt]:
    """Round ``index``'s three prompts, in an order that rotates with the round."""
    n = tok.count(base)
    fresh = random_token_prompt(tok, n, random.Random(f"fresh/{seed}/{index}"), pool)
    return rotated(
        tok,
        [
            ("repeated", base),
            ("near_filler", near_prompt(tok, base, pool, seed=seed, index=index)),
            ("unique_head", fresh),
        ],
        index,
    )
