"""Prompt text: the latency buckets' and the random-token prompts.

- :func:`official_filler`: the grader's prompt, one sentence repeated
  ``max(1, n // 10)`` times, the same text for every request (spec, Latency).
- :func:`exact_prompt`: a prompt of EXACTLY ``n`` tokens for the given tokenizer,
  unique per ``(seed, index)``, adjusted by decode→encode until stable, like
  vLLM's RandomDataset; strict mode uses it so no two requests share a prefix.
- :func:`random_token_prompt`: text of exactly ``n`` tokens from random ids of a pool
  (:func:`regular_ids`: the vocabulary less the special tokens), harness's own (throughput's
  strict prompts, the audit's fresh controls).
- :func:`settle`: THE decode→encode loop every exact-length prompt goes through
  (strict latency prompts here, the random-token prompts, and the Paris grader's own
  procedure, harness/graders/paris.py, which keeps the last text even when it is not exact).
- :func:`fresh_seed` / :func:`repeat_seed`: the seed every strict prompt derives from.
  A run draws a fresh one unless ``--seed N`` is given, because a server that keeps
  its prefix cache across runs (vLLM does) would serve the same "unique" prompts
  from cache from the second run on; repeats derive theirs from the run's seed, so
  ``--seed N`` replays a whole repeated run (docs/timing.md, "Seeds").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from harness.errors import ConfigError
from harness.profiles import LatencySpec
from harness.tokenizer import Tokenizer

# Common English words: readable prompts, stable tokenisation.
WORDS = (
    "time year people way day man thing woman life child world school state family student "
    "group country problem hand part place case week company system program question work "
    "government number night point home water room mother area money story fact month lot "
    "right study book eye job word business issue side kind head house service friend father "
    "power hour game line end member law car city community name president team minute idea "
    "kid body information back parent face others level office door health person art war "
    "history party result change morning reason research girl guy moment air teacher force"
).split()


def settle(
    tok: Tokenizer,
    ids: list[int],
    n_tokens: int,
    pad: Callable[[int], list[int]],
    rounds: int,
    *,
    skip_ids: frozenset[int] = frozenset(),
) -> tuple[str, bool]:
    """Decode ``ids``, re-encode, cut to ``n_tokens`` or ``pad(k)`` k more ids; repeat at most
    ``rounds`` times. Returns (the text of the last ids, whether it re-encodes to exactly
    ``n_tokens``). ``skip_ids`` are dropped before each decode (``skip_special_tokens``)."""

    def text_of(xs: list[int]) -> str:
        return tok.decode([i for i in xs if i not in skip_ids] if skip_ids else xs)

    for _ in range(rounds):
        ids = tok.encode(text_of(ids))
        if len(ids) == n_tokens:
            return text_of(ids), True
        ids = ids[:n_tokens] if len(ids) > n_tokens else ids + pad(n_tokens - len(ids))
    return text_of(ids), False


RANDOM_ROUNDS = 32  # decode→encode rounds a random-token prompt may take to settle


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

    def pad(k: int) -> list[int]:
        return [rng.choice(pool) for _ in range(k)]

    text, exact = settle(tok, ids, n_tokens, pad, RANDOM_ROUNDS)
    if not exact:
        raise ConfigError(
            f"could not build an exact {n_tokens}-token random prompt with {tok.name}",
            hint="try another --seed or a different --tokenizer",
        )
    return text


SEED_RANGE = 1 << 31  # seeds are non-negative 31-bit integers: short to type, JSON-safe


def fresh_seed() -> int:
    """A seed drawn from the OS's entropy: every run gets prompts no server has seen."""
    return random.SystemRandom().randrange(SEED_RANGE)


def repeat_seed(base: int, repeat: int) -> int:
    """The seed of repetition ``repeat`` (1-based) of a run seeded ``base``: ``base`` itself
    for the first (so ``--seed N`` alone replays repeat 1), then a deterministic draw
    (string seeding is hashed with SHA-512: the same in every process)."""
    if repeat <= 1:
        return base
    return random.Random(f"{base}:repeat:{repeat}").randrange(SEED_RANGE)


def official_filler(spec: LatencySpec, prompt_tokens: int) -> str:
    return spec.filler_sentence * spec.filler_repeats(prompt_tokens)


def exact_prompt(tok: Tokenizer, n_tokens: int, *, seed: int, index: int) -> str:
    """A unique prompt of exactly ``n_tokens`` tokens (re-encoding the text gives ``n_tokens``)."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    rng = random.Random(f"{seed}:{index}:{n_tokens}")
    # A unique head defeats prefix caching from the very first token: the random number comes
    # first. An engine that caches token by token (llama.cpp) reuses any shared first tokens,
    # and "Request {seed}-" shared ~11 tokens by every prompt of a run (vLLM's 16-token
    # blocks never saw them): 19 % of a 64-token bucket read as cached on llama-server.
    head = f"{rng.randrange(1 << 30)}: request {seed}-{index}: "
    words: list[str] = []
    text = head
    # Grow by words until at or above n, then cut by tokens and settle by decode→encode.
    while tok.count(text) < n_tokens:
        batch = [rng.choice(WORDS) for _ in range(max(8, (n_tokens - tok.count(text))))]
        words.extend(batch)
        text = head + " ".join(words)
    ids = tok.encode(text)[:n_tokens]

    def pad(k: int) -> list[int]:
        return tok.encode(" " + rng.choice(WORDS))[:k]

    text, exact = settle(tok, ids, n_tokens, pad, 16)
    if not exact:
        raise ConfigError(f"could not build an exact {n_tokens}-token prompt with {tok.name}")
    return text


def seed_line(seed: int, drawn: bool, what: str = "strict prompts") -> str:
    """How a run names its prompt seed: drawn or given, and the flag that replays it."""
    how = "drawn for this run" if drawn else "given"
    return f"{what}: seed {seed} ({how}; --seed {seed} replays them)"
