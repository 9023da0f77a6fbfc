"""The audit's three prompts per bucket: the grader's repeated filler and its two controls.

The controls differ from the filler only in what the rule is about (docs/audit.md):

- ``near_filler``: the filler with the last sentence's "dog" swapped for a common word
  of the same token length, another each round: a prefix cache serves it as it serves the
  filler, and speculative decoding sees the same text; only an answer cache keyed on the
  exact prompt, or a server that recognises the exact filler, treats it differently. A
  new word each round, so an answer cache has not seen the control either;
- ``unique_head``: a first sentence of common words drawn per round (the same token
  length), then the filler's body: no prefix-cache hit at all, the cost of a fresh
  prompt (evidence, not a rule).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from harness.audit.report import Role
from harness.prompts import WORDS
from harness.tokenizer import Tokenizer

OLD = " dog."


@dataclass(frozen=True)
class Prompt:
    role: Role
    text: str
    tokens: int


def filler(sentence: str, repeats: int) -> str:
    return sentence * repeats


def near_filler(tok: Tokenizer, text: str, *, seed: int, index: int) -> str:
    """The filler with its last "dog" swapped for a word of the same token length, the
    ``index``-th of a seeded order of such words: no two rounds of an audit share one (up to
    the 99 words that fit with Qwen3.5's tokenizer; an answer cache must not have seen a control within the audit),
    the filler unchanged but for its last word when it has no "dog"."""
    rng = random.Random(f"near/{seed}")
    n = tok.count(text)
    head, sep, tail = text.rpartition(OLD)
    if not sep:
        head, tail = text.rstrip().rpartition(" ")[0], " "
    candidates = rng.sample(WORDS, len(WORDS))

    def swap(word: str) -> str:
        return f"{head} {word}." + tail if sep else f"{head} {word}{tail}"

    fits = [w for w in candidates if w != "dog" and tok.count(swap(w)) == n]
    return swap(fits[index % len(fits)] if fits else candidates[index % len(candidates)])


def unique_head(tok: Tokenizer, sentence: str, text: str, *, seed: int, index: int) -> str:
    """A first sentence of common words drawn for this round, then the filler's body, of
    the filler's token length (the closest draw of a few when none matches exactly)."""
    rng = random.Random(f"head/{seed}/{index}")
    body, n = text[len(sentence) :], tok.count(text)
    k = max(1, len(sentence.split()) - 1)
    best = ""
    for _ in range(32):
        words = rng.sample(WORDS, k + rng.randrange(3))
        head = " ".join([words[0].capitalize(), *words[1:]]) + ". "
        candidate = head + body
        if tok.count(candidate) == n:
            return candidate
        if not best or abs(tok.count(candidate) - n) < abs(tok.count(best) - n):
            best = candidate
    return best


def round_prompts(
    tok: Tokenizer, sentence: str, repeats: int, *, seed: int, index: int
) -> list[Prompt]:
    """Round ``index``'s three prompts, in an order that rotates with the round (the
    controls are interleaved with the repeated prompt: none is always first or last)."""
    rep = filler(sentence, repeats)
    texts: list[tuple[Role, str]] = [
        ("repeated", rep),
        ("near_filler", near_filler(tok, rep, seed=seed, index=index)),
        ("unique_head", unique_head(tok, sentence, rep, seed=seed, index=index)),
    ]
    return rotated(tok, texts, index)


def rotated(tok: Tokenizer, texts: list[tuple[Role, str]], index: int) -> list[Prompt]:
    """``texts`` as prompts, rotated by ``index`` (none is always first or last)."""
    k = index % len(texts)
    return [Prompt(role, t, tok.count(t)) for role, t in texts[k:] + texts[:k]]
