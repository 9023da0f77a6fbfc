"""Random-token prompts of a target length: the Paris grader's procedure, and harness's own.

- :func:`grader_prompts` is the grader's procedure (docs/throughput.md): the
  allowed ids are the vocabulary minus the special ids; prompt ``i`` starts as
  a window of CONSECUTIVE allowed ids at a random offset (+ i, wrapping), then
  at most 10 decode (specials skipped) → encode rounds pad with random allowed
  ids or cut; the last text is kept even if it is not exact. The grader's
  generator is unseeded; harness passes a seeded ``numpy`` generator (the seam
  that makes a run repeatable and lets tests give both sides the same prompts).
- :func:`prompt_list` is harness's stricter variant (strict mode): independent
  random ids, exact length verified (it raises rather than keep a wrong length),
  every prompt a pure function of ``(seed, stream, index)``.

Both settle through the one loop, :func:`harness.prompts.settle`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from harness.errors import ConfigError
from harness.prompts import settle
from harness.tokenizer import Tokenizer

MAX_ROUNDS = 32


def regular_ids(tok: Tokenizer) -> list[int]:
    """Every id a random prompt may use: the whole vocabulary except special tokens."""
    ids = [i for i in range(tok.vocab_size) if i not in tok.special_ids]
    if not ids:
        raise ConfigError(f"tokenizer {tok.name} has no regular tokens (vocab_size 0?)")
    return ids


def grader_prompts(
    tok: Tokenizer, count: int, n_tokens: int, rng: np.random.Generator, *, rounds: int = 10
) -> list[str]:
    """``count`` prompts built exactly as the Paris grader builds them (see module doc)."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    allowed = np.array(regular_ids(tok))
    size = len(allowed)

    def pad(k: int) -> list[int]:
        return [int(x) for x in allowed[rng.integers(0, size, size=k)]]

    out: list[str] = []
    for i in range(count):
        offset = int(rng.integers(0, size))
        ids = [int(x) for x in allowed[(offset + i + np.arange(n_tokens)) % size]]
        text, _ = settle(tok, ids, n_tokens, pad, rounds, skip_ids=tok.special_ids)
        out.append(text)
    return out


def random_token_prompt(
    tok: Tokenizer, n_tokens: int, rng: random.Random, pool: Sequence[int]
) -> str:
    """Text that re-encodes to exactly ``n_tokens`` tokens, built from random ids of ``pool``."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    ids = [rng.choice(pool) for _ in range(n_tokens)]

    def pad(k: int) -> list[int]:
        return [rng.choice(pool) for _ in range(k)]

    text, exact = settle(tok, ids, n_tokens, pad, MAX_ROUNDS)
    if not exact:
        raise ConfigError(
            f"could not build an exact {n_tokens}-token random prompt with {tok.name}",
            hint="try another --seed or a different --tokenizer",
        )
    return text


def prompt_list(
    tok: Tokenizer, n_prompts: int, n_tokens: int, *, seed: int, stream: str
) -> list[str]:
    """``n_prompts`` exact-length prompts; ``stream`` names an independent sequence
    (e.g. ``"shared"`` for the list every level reuses, ``"level-8"`` for fresh ones)."""
    rng = random.Random(f"{seed}:{stream}:{n_tokens}")
    pool = regular_ids(tok)
    return [random_token_prompt(tok, n_tokens, rng, pool) for _ in range(n_prompts)]
