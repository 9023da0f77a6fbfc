"""Deterministic generated text in which every piece is exactly one tokenizer token.

The vocabulary is a list of common words with a leading space (" the", " of"…);
the pre-tokenizer splits at each space+letters, so a concatenation re-tokenises
to exactly one token per piece and ``usage.completion_tokens`` equals the count a
client gets by re-tokenising the output. The word list is tokenised once at
start-up and words that are not one token in the configured tokenizer dropped.

A thinking block is ``<think>`` ``\\n`` ``Okay`` words… ``\\n`` ``</think>`` ``\\n\\n``
followed by the answer words: also one token per piece with Qwen3.5.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass

from harness.tokenizer import Tokenizer

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there one all we their has been if more when "
    "will would who so no time people can other what about into only some could them than "
    "first may like new these two its any my our out also way after years made most over "
    "such where even should must many those because each much before both then good well "
    "very here just own being through back still know same under little take few find life "
    "long work great make right world while three down during part"
).split()

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


@dataclass(frozen=True)
class Piece:
    """One generated token: its text and that text JSON-escaped (for chunk templates)."""

    text: str
    escaped: str


def _piece(text: str) -> Piece:
    return Piece(text, json.dumps(text, ensure_ascii=False)[1:-1])


class Vocabulary:
    """The one-token pieces generated text is made of, checked against a tokenizer."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        words = [" " + w for w in _WORDS]
        self.words = [_piece(w) for w in words if len(tokenizer.encode(w)) == 1]
        if len(self.words) < 16:
            raise ValueError(f"tokenizer {tokenizer.name} has too few one-token words")
        self.think_head = [_piece(THINK_OPEN), _piece("\n"), _piece("Okay")]
        self.think_tail = [_piece("\n"), _piece(THINK_CLOSE), _piece("\n\n")]
        for p in self.think_head + self.think_tail:
            if len(tokenizer.encode(p.text)) != 1:
                raise ValueError(f"{p.text!r} is not one token in {tokenizer.name}")

    def generate(self, key: str, n: int, *, think: int = 0, salt: str = "") -> list[Piece]:
        """``n`` pieces for ``key`` (same key, same pieces); a think block of ``think``
        reasoning words first when ``think`` > 0. The result is cut at ``n`` pieces,
        so a small ``n`` may end inside the think block, as a real model would."""
        digest = hashlib.blake2b(f"{salt}\x00{key}".encode(), digest_size=8).digest()
        rng = random.Random(int.from_bytes(digest, "big"))
        out: list[Piece] = []
        if think > 0:
            out += self.think_head
            out += rng.choices(self.words, k=think)
            out += self.think_tail
        if len(out) < n:
            out += rng.choices(self.words, k=n - len(out))
        return out[:n]


def join(pieces: list[Piece]) -> str:
    return "".join(p.text for p in pieces)
