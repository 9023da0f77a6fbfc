"""Prompts of random token ids, exactly ``n`` tokens long (vLLM RandomDataset style).

The grader draws ids uniformly from the whole vocabulary minus the special
tokens, decodes them to text and re-encodes until the text is exactly ``n``
tokens: re-encoding random ids merges and splits pieces, so the first decode is
rarely exact. Every prompt is a pure function of ``(seed, index)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from harness.errors import ConfigError
from harness.tokenizer import Tokenizer

MAX_ROUNDS = 32


def regular_ids(tok: Tokenizer) -> list[int]:
    """Every id a random prompt may use: the whole vocabulary except special tokens."""
    ids = [i for i in range(tok.vocab_size) if i not in tok.special_ids]
    if not ids:
        raise ConfigError(f"tokenizer {tok.name} has no regular tokens (vocab_size 0?)")
    return ids


def random_token_prompt(
    tok: Tokenizer, n_tokens: int, rng: random.Random, pool: Sequence[int]
) -> str:
    """Text that re-encodes to exactly ``n_tokens`` tokens, built from random ids of ``pool``."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    ids = [rng.choice(pool) for _ in range(n_tokens)]
    for _ in range(MAX_ROUNDS):
        text = tok.decode(ids)
        again = tok.encode(text)
        if len(again) == n_tokens:
            return text
        if len(again) > n_tokens:
            ids = again[:n_tokens]
        else:
            ids = again + [rng.choice(pool) for _ in range(n_tokens - len(again))]
    raise ConfigError(
        f"could not build an exact {n_tokens}-token random prompt with {tok.name}",
        hint="try another --seed or a different --tokenizer",
    )


def prompt_list(
    tok: Tokenizer, n_prompts: int, n_tokens: int, *, seed: int, stream: str
) -> list[str]:
    """``n_prompts`` exact-length prompts; ``stream`` names an independent sequence
    (e.g. ``"shared"`` for the list every level reuses, ``"level-8"`` for fresh ones)."""
    rng = random.Random(f"{seed}:{stream}:{n_tokens}")
    pool = regular_ids(tok)
    return [random_token_prompt(tok, n_tokens, rng, pool) for _ in range(n_prompts)]
