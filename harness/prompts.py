"""Prompt text for the latency buckets.

- :func:`official_filler`: the grader's prompt, one sentence repeated
  ``max(1, n // 10)`` times, the same text for every request (spec, Latency).
- :func:`exact_prompt`: a prompt of EXACTLY ``n`` tokens for the given tokenizer,
  unique per ``(seed, index)``, adjusted by decode→encode until stable, like
  vLLM's RandomDataset; strict mode uses it so no two requests share a prefix.
"""

from __future__ import annotations

import random

from harness.errors import ConfigError
from harness.profiles import LatencySpec
from harness.tokenizer import Tokenizer

# Common English words: readable prompts, stable tokenisation.
_WORDS = (
    "time year people way day man thing woman life child world school state family student "
    "group country problem hand part place case week company system program question work "
    "government number night point home water room mother area money story fact month lot "
    "right study book eye job word business issue side kind head house service friend father "
    "power hour game line end member law car city community name president team minute idea "
    "kid body information back parent face others level office door health person art war "
    "history party result change morning reason research girl guy moment air teacher force"
).split()


def official_filler(spec: LatencySpec, prompt_tokens: int) -> str:
    return spec.filler_sentence * spec.filler_repeats(prompt_tokens)


def exact_prompt(tok: Tokenizer, n_tokens: int, *, seed: int, index: int) -> str:
    """A unique prompt of exactly ``n_tokens`` tokens (re-encoding the text gives ``n_tokens``)."""
    if n_tokens <= 0:
        raise ConfigError(f"prompt length must be positive, got {n_tokens}")
    rng = random.Random(f"{seed}:{index}:{n_tokens}")
    # A unique head defeats prefix caching from the very first token.
    head = f"Request {seed}-{index}-{rng.randrange(1 << 30)}: "
    words: list[str] = []
    text = head
    # Grow by words until at or above n, then cut by tokens and settle by decode→encode.
    while tok.count(text) < n_tokens:
        batch = [rng.choice(_WORDS) for _ in range(max(8, (n_tokens - tok.count(text))))]
        words.extend(batch)
        text = head + " ".join(words)
    ids = tok.encode(text)[:n_tokens]
    for _ in range(16):
        text = tok.decode(ids)
        again = tok.encode(text)
        if len(again) == n_tokens:
            return text
        if len(again) > n_tokens:
            ids = again[:n_tokens]
        else:
            ids = again + tok.encode(" " + rng.choice(_WORDS))[: n_tokens - len(again)]
    raise ConfigError(f"could not build an exact {n_tokens}-token prompt with {tok.name}")
