"""The pretend model: prompt accounting, prefix cache, output length and text.

Pure decisions, no I/O: given a parsed request, :meth:`Engine.plan` says how
many tokens come out, which, why it stopped, and when each is due.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

from harness.grader_items import grader_items
from harness.paths import REPO_ROOT
from harness.simulate.answers import AnswerKey
from harness.simulate.config import FILLER_SENTENCE, SimConfig
from harness.simulate.requests import BadRequest, ParsedRequest
from harness.simulate.textgen import Piece, Vocabulary, piece
from harness.tokenizer import Tokenizer

_BLOCK = 16  # vLLM's default KV block size: prefix caching works in whole blocks
_CACHE_LIMIT = 1_000_000
# --quality-detection: a canned answer's tokens and speed-up; a routed model's slow-down
# and its answers' length (a share of the served model's)
CANNED_TOKENS = 4
CANNED_SPEEDUP = 20.0
ROUTED_SLOWDOWN = 1.5
ROUTED_LENGTH = 0.6


class PrefixCache:
    """Hashes of prompt prefixes in whole blocks; a hit costs no prefill time."""

    def __init__(self) -> None:
        self._seen: set[int] = set()

    def lookup_and_add(self, ids: list[int]) -> int:
        """Tokens of ``ids`` already cached (whole blocks, never the last token); then cache all."""
        if len(self._seen) > _CACHE_LIMIT:
            self._seen.clear()
        cached, h, hitting = 0, 0, True
        for start in range(0, len(ids) - len(ids) % _BLOCK, _BLOCK):
            h = hash((h, tuple(ids[start : start + _BLOCK])))
            if hitting and h in self._seen:
                cached += _BLOCK
            else:
                hitting = False
                self._seen.add(h)
        return min(cached, max(len(ids) - 1, 0))

    def clear(self) -> None:
        self._seen.clear()


def is_filler(text: str) -> bool:
    """The grader's latency prompt: the filler sentence repeated, nothing else."""
    n = len(text) // len(FILLER_SENTENCE)
    return n > 0 and text == FILLER_SENTENCE * n


@dataclass
class Plan:
    pieces: list[Piece]
    finish_reason: str
    prompt_tokens: int
    cached_tokens: int
    reported_completion_tokens: int
    first_token_ns: int  # absolute deadline of token 0
    itl_ns: int
    token_ids: list[int]  # every generated id (the pieces', then the counted EOS): the truth

    def deadline(self, i: int) -> int:
        return self.first_token_ns + i * self.itl_ns


class Engine:
    def __init__(self, cfg: SimConfig, tokenizer: Tokenizer) -> None:
        self.cfg = cfg
        self.tokenizer = tokenizer
        self.vocab = Vocabulary(tokenizer)
        self.cache = PrefixCache()
        self._calls = 0
        self._seen: set[str] = set()  # prompts answered before (--repeat-speedup)
        self._jitter = random.Random(f"jitter/{cfg.seed}")
        self.answers: AnswerKey | None = None
        # what a server that detects the quality graders' prompts looks for (the chat
        # template trims a message, as Qwen3.5's does)
        self.grader_texts = (
            tuple(f"user\n{i.text.strip()}<|im_end|>" for i in grader_items())
            if cfg.quality_detection
            else ()
        )
        if cfg.accuracy is not None:
            samples = REPO_ROOT / "tasks" / "samples"  # harness's sample data (data/layout.py)
            self.answers = AnswerKey(Path(cfg.accuracy_data) if cfg.accuracy_data else samples)

    def jitter(self) -> float:
        """This request's timing factor: exp(N(0, jitter_pct/100)), median 1 (one draw each)."""
        sigma = self.cfg.jitter_pct / 100
        return math.exp(self._jitter.gauss(0.0, sigma)) if sigma > 0 else 1.0

    def prompt_ids(self, req: ParsedRequest) -> list[int]:
        return (
            req.prompt_ids if req.prompt_ids is not None else self.tokenizer.encode(req.prompt_text)
        )

    def check_length(self, prompt_tokens: int, req: ParsedRequest) -> int:
        """The max_tokens in force; a 400 like vLLM's when the context is too long."""
        limit = self.cfg.max_model_len
        max_tokens = req.max_tokens
        if max_tokens is None:
            max_tokens = max(1, min(self.cfg.default_max_tokens, limit - prompt_tokens))
        if prompt_tokens + max_tokens > limit:
            raise BadRequest(
                f"This model's maximum context length is {limit} tokens. However, you requested "
                f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, "
                f"{max_tokens} in the completion). Please reduce the length of the messages or completion.",
                "max_tokens",
            )
        return max_tokens

    def length(self, req: ParsedRequest, max_tokens: int, route: str = "") -> tuple[int, str]:
        """How many tokens come out and the finish reason.

        ``output_tokens`` is where the model would emit EOS (honoured unless the client
        sends ``ignore_eos``; ``min_tokens`` raises it); ``stop_early_at`` is a server that
        stops there whatever the client asked; ``ignore_max_tokens`` overshoots by 25 %.
        """
        cfg = self.cfg
        n, finish = max_tokens, "length"
        if cfg.output_tokens is not None and not req.ignore_eos:
            natural = cfg.output_tokens
            resumed = self.resumed(req, route)
            if resumed is not None:  # the rest of its answer; a near tie where it had ended
                done = resumed[1]
                natural = cfg.output_tokens - done if done < cfg.output_tokens else cfg.run_on
            natural = max(natural, req.min_tokens)
            if natural < max_tokens:
                n, finish = natural, "stop"
        if cfg.stop_early_at is not None and cfg.stop_early_at < n:
            n, finish = cfg.stop_early_at, "stop"
        if cfg.ignore_max_tokens:
            n, finish = max_tokens + max(1, max_tokens // 4), "length"
        return n, finish

    def salt(self, req: ParsedRequest, route: str) -> str:
        """What the generated text depends on besides the prompt."""
        salt = f"seed={self.cfg.seed}"
        if not req.greedy or self.cfg.nondeterministic:
            salt += f"/call={self._calls}"
        if self.cfg.route_divergence and route == "/invocations":
            salt += "/invocations"
        if self.cfg.second_stack and req.kind == "completion":
            salt += "/second-stack"
        return salt

    def resumed(self, req: ParsedRequest, route: str) -> tuple[str, int] | None:
        """(its beginning, j) when the prompt ends with the first j words of this model's
        answer to its beginning (each one space and one word; the longest such j, at most
        ``--output-tokens``): a real model continues its own answer where it stands, and
        after its finished answer its next token is EOS, so the answer ends at once
        (docs/audit.md, ``complete_outputs``); None: a prompt of its own."""
        k = self.cfg.output_tokens
        text = req.prompt_text
        if not k or req.prompt_ids is not None or req.thinking or self.cfg.special_tokens:
            return None
        cuts: list[int] = []  # where the last 1, 2, … k words begin
        at = len(text)
        while len(cuts) < k and (at := text.rfind(" ", 0, at)) > 0:
            cuts.append(at)
        salt = self.salt(req, route)
        for j in range(len(cuts), 0, -1):
            head = text[: cuts[j - 1]]
            if (
                "".join(p.text for p in self.vocab.generate(head, j, salt=salt))
                == text[len(head) :]
            ):
                return head, j
        return None

    def grader_item(self, req: ParsedRequest) -> bool:
        """A chat whose user message is one of the quality graders' items, exactly."""
        return req.kind == "chat" and any(t in req.prompt_text for t in self.grader_texts)

    def _reply(self, req: ParsedRequest) -> list[Piece] | None:
        if self.answers is None or self.cfg.accuracy is None or req.prompt_ids is not None:
            return None
        text = self.answers.reply(req.prompt_text, self.cfg.accuracy, self.cfg.seed)
        if text is None:
            return None
        return [piece(self.tokenizer.decode([i]), i) for i in self.tokenizer.encode(text)]

    def plan(self, req: ParsedRequest, ids: list[int], route: str, arrival_ns: int) -> Plan:
        cfg = self.cfg
        self._calls += 1
        max_tokens = self.check_length(len(ids), req)
        n, finish = self.length(req, max_tokens, route)
        cheat = cfg.quality_detection if self.grader_item(req) else None
        if cheat == "canned":
            n, finish = min(n, CANNED_TOKENS), "stop"
        elif cheat == "routed":
            n, finish = max(1, int(n * ROUTED_LENGTH)), "stop"
        cached = self.cache.lookup_and_add(ids) if cfg.prefix_cache else 0
        salt = self.salt(req, route)
        key = req.prompt_text if req.prompt_ids is None else ",".join(map(str, ids))
        think = cfg.think_tokens if (req.thinking or cfg.think_leak) else 0
        resumed = self.resumed(req, route) if cfg.output_tokens else None
        if resumed is not None:  # the model goes on along its own answer's path
            head, done = resumed
            pieces = self.vocab.generate(head, done + n, salt=salt)[done:]
        else:
            pieces = self.vocab.generate(key, n, think=think, salt=salt)
        reply = self._reply(req)
        if reply is not None:  # --accuracy: a known question's answer, then EOS
            pieces = (self.vocab.think_head + self.vocab.think_tail if think else []) + reply
            n, finish = (n, "length") if len(pieces) > n else (len(pieces), "stop")
            pieces = pieces[:n]
        if cfg.stream_mismatch == "first_token" and req.stream and pieces:
            words = self.vocab.words  # another word first: what a draft stack might stream
            pieces[0] = (
                words[(words.index(pieces[0]) + 1) % len(words)] if pieces[0] in words else words[0]
            )
        if cfg.special_tokens:  # the answer's last tokens: generated, not in the text
            k = min(cfg.special_tokens, n)
            pieces[n - k :] = [self.vocab.special] * k
        token_ids = [p.token_id for p in pieces]
        if cfg.count_eos and finish == "stop":
            token_ids.append(self.vocab.eos_id)
        factor = self.jitter()
        if cfg.filler_speedup > 1 and is_filler(req.prompt_text):
            factor /= cfg.filler_speedup
        if cfg.repeat_speedup > 1:
            factor /= cfg.repeat_speedup if key in self._seen else 1.0
            self._seen.add(key)
        if req.kind == "completion":
            factor /= cfg.prompt_speedup
        if cheat is not None:
            factor = factor / CANNED_SPEEDUP if cheat == "canned" else factor * ROUTED_SLOWDOWN
        prefill_ns = int(cfg.prefill_ms_per_token * 1e6 * (len(ids) - cached) * factor)
        skew = cfg.usage_skew + (2 if cfg.stream_mismatch == "usage" and req.stream else 0)
        reported = max(0, len(token_ids) + skew)
        return Plan(
            pieces=pieces,
            finish_reason=finish,
            prompt_tokens=len(ids),
            cached_tokens=cached,
            reported_completion_tokens=reported,
            first_token_ns=arrival_ns + int(cfg.ttft_ms * 1e6 * factor) + prefill_ns,
            itl_ns=int(cfg.itl_ms * 1e6 * factor),
            token_ids=token_ids,
        )
