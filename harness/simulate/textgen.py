"""Deterministic generated text in which every piece is exactly one tokenizer token.

The vocabulary is a list of common words with a leading space (" the", " of"…);
the pre-tokenizer splits at each space+letters, so a concatenation re-tokenises
to exactly one token per piece and ``usage.completion_tokens`` equals the count a
client gets by re-tokenising the output. The word list is tokenised once at
start-up and words that are not one token in the configured tokenizer dropped.

A thinking block is ``<think>`` ``\\n`` ``Okay`` words… ``\\n`` ``</think>`` ``\\n\\n``
followed by the answer words: also one token per piece with Qwen3.5.

Every piece carries its token id (``return_token_ids``). :attr:`Vocabulary.special` is
a special token with EMPTY text, as vLLM's detokeniser (``skip_special_tokens``)
renders one: generated, timed and counted, but not in the text; :attr:`Vocabulary.eos_id`
is the id of the EOS token vLLM counts at the end of a "stop" answer.
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
    """One generated token: its text, that text JSON-escaped (for chunk templates), its id."""

    text: str
    escaped: str
    token_id: int = 0


def _piece(text: str, token_id: int = 0) -> Piece:
    return Piece(text, json.dumps(text, ensure_ascii=False)[1:-1], token_id)


def _special_id(tokenizer: Tokenizer, names: tuple[str, ...], fallback: int) -> int:
    """The id of the first of ``names`` the tokenizer has as one special token."""
    for name in names:
        ids = tokenizer.encode(name)
        if len(ids) == 1 and ids[0] in tokenizer.special_ids:
            return ids[0]
    return fallback


class Vocabulary:
    """The one-token pieces generated text is made of, checked against a tokenizer."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        words = [(" " + w, tokenizer.encode(" " + w)) for w in _WORDS]
        self.words = [_piece(w, ids[0]) for w, ids in words if len(ids) == 1]
        if len(self.words) < 16:
            raise ValueError(f"tokenizer {tokenizer.name} has too few one-token words")
        head, tail = [THINK_OPEN, "\n", "Okay"], ["\n", THINK_CLOSE, "\n\n"]
        for text in head + tail:
            if len(tokenizer.encode(text)) != 1:
                raise ValueError(f"{text!r} is not one token in {tokenizer.name}")
        self.think_head = [_piece(t, tokenizer.encode(t)[0]) for t in head]
        self.think_tail = [_piece(t, tokenizer.encode(t)[0]) for t in tail]
        specials = sorted(tokenizer.special_ids) or [0]
        self.eos_id = _special_id(tokenizer, ("<|im_end|>", "<|endoftext|>"), specials[-1])
        self.special = _piece("", _special_id(tokenizer, ("<|im_start|>",), specials[0]))

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


def piece(text: str, token_id: int = 0) -> Piece:
    """One generated token with its text (public: the engine's --accuracy answers)."""
    return _piece(text, token_id)
