"""The audit's timed requests, sent as the profile's grader sends its own (docs/audit.md,
"Per profile"), so the only difference between a timed prompt and its control is the text:

- the latency grader's (Efficient Qwen): its prompt body (harness/graders/qwen.py:
  ``latency_body``) on its latency route through its urllib client
  (harness/client/urllib_client.py: ``json.dumps`` defaults, a new connection each);
- the sweep's (GPU MODE Paris): the grader's chat body (harness/graders/paris.py:
  ``sweep_body``) on its chat route through its aiohttp session (``grader_session``, one
  for the audit as the grader keeps one for its sweep), posted and read as the sweep posts
  and reads it (``post_sweep``, the one definition harness/throughput/grader_loop.py sends
  through too).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import aiohttp

from harness.audit.config import AuditConfig
from harness.audit.workload import Workload
from harness.client.urllib_client import post_like_grader
from harness.graders.paris import grader_session, post_sweep, sweep_body
from harness.graders.qwen import latency_body
from harness.tokenizer import Tokenizer

EXCERPT = 200


@dataclass(frozen=True)
class Answer:
    """What one timed request gave: the grader's time, the token counts, the end."""

    e2e_ms: float | None = None
    output_tokens: int | None = None  # usage.completion_tokens, else the text re-tokenised
    text_tokens: int | None = None
    finish_reason: str | None = None
    error: str | None = None
    text: str = ""

    @property
    def digest(self) -> str | None:
        """A short hash of the answer's text: the same answer twice, seen without keeping it."""
        if self.error is not None:
            return None
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]


def _counted(text: str, usage: int | None, tok: Tokenizer) -> tuple[int, int]:
    text_tokens = tok.count(text) if text else 0
    return (usage if usage is not None else text_tokens), text_tokens


class Sender:
    """Sends a workload's prompt as its grader does; one per audit (it may hold a session)."""

    def __init__(self, cfg: AuditConfig, tok: Tokenizer, session: aiohttp.ClientSession | None):
        self.cfg, self.tok, self.session = cfg, tok, session

    async def __call__(self, w: Workload, prompt: str) -> Answer:
        if self.session is not None:
            return await self._chat(self.session, w, prompt)
        return await self._prompt(w, prompt)

    async def _prompt(self, w: Workload, prompt: str) -> Answer:
        cfg = self.cfg
        payload = latency_body(prompt, w.max_tokens, cfg.temperature)
        rec = await asyncio.to_thread(
            post_like_grader, cfg.url + cfg.endpoint, payload, timeout_s=cfg.timeout_s,
            endpoint=cfg.endpoint,
        )  # fmt: skip
        if not rec.ok or rec.error is not None:
            return Answer(error=rec.error.message if rec.error else "failed")
        out, text_tokens = _counted(rec.text, rec.usage_completion_tokens, self.tok)
        return Answer(rec.e2e_ms, out, text_tokens, rec.finish_reason, None, rec.text)

    async def _chat(self, session: aiohttp.ClientSession, w: Workload, prompt: str) -> Answer:
        cfg = self.cfg
        payload = sweep_body(cfg.model, prompt, w.max_tokens, cfg.temperature, cfg.top_p)
        t_start = time.perf_counter()
        reply = await post_sweep(session, cfg.url + cfg.endpoint, payload)
        if reply.error is not None:
            return Answer(error=f"{type(reply.error).__name__}: {reply.error}"[:EXCERPT])
        body = reply.body
        if reply.status != 200:
            text = (reply.raw or b"")[:EXCERPT].decode("utf-8", errors="replace")
            return Answer(error=f"HTTP {reply.status} from {cfg.endpoint}: {text}")
        usage = body.get("usage", {}).get("completion_tokens")  # absent: None, not the grader's 0
        out, text_tokens = _counted(
            reply.content, usage if isinstance(usage, int) else None, self.tok
        )
        e2e_ms = (reply.t_end - t_start) * 1000
        return Answer(e2e_ms, out, text_tokens, reply.finish_reason, None, reply.content)


@asynccontextmanager
async def sender(cfg: AuditConfig, tok: Tokenizer) -> AsyncIterator[Sender]:
    """The audit's sender: with the grader's aiohttp session for the sweep's chat bodies."""
    if cfg.client == "aiohttp":
        async with grader_session(cfg.timeout_s) as session:
            yield Sender(cfg, tok, session)
    else:
        yield Sender(cfg, tok, None)
