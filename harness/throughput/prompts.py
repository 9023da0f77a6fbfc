"""Harness's own random-token prompts for strict mode: independent random ids, exact length
verified (it raises rather than keep a wrong length), every prompt a pure function of
``(seed, stream, index)`` (harness/prompts.py: ``random_token_prompt``). Official mode sends
the Paris grader's own prompts (harness/graders/paris.py: ``grader_prompts``).
"""

from __future__ import annotations

import random

from harness.prompts import random_token_prompt, regular_ids
from harness.tokenizer import Tokenizer


def prompt_list(
    tok: Tokenizer, n_prompts: int, n_tokens: int, *, seed: int, stream: str
) -> list[str]:
    """``n_prompts`` exact-length prompts; ``stream`` names an independent sequence
    (e.g. ``"shared"`` for the list every level reuses, ``"level-8"`` for fresh ones)."""
    rng = random.Random(f"{seed}:{stream}:{n_tokens}")
    pool = regular_ids(tok)
    return [random_token_prompt(tok, n_tokens, rng, pool) for _ in range(n_prompts)]
