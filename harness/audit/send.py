"""The audit's timed requests, sent as the profile's grader sends its own (docs/audit.md,
"Per profile"), so the only difference between a timed prompt and its control is the text:

- the latency grader's (Efficient Qwen): a prompt body ``{"prompt", "max_tokens",
  "temperature"}`` on its latency route through its urllib client
  (harness/client/urllib_client.py: ``json.dumps`` defaults, a new connection each);
- the sweep's (GPU MODE Paris): the grader's chat body (harness/throughput/grader_loop.py:
  ``sweep_body``) on its chat route through its aiohttp session (``grader_session``, one
  for the audit as the grader keeps one for its sweep), posted with ``json=``; the answer
  read by the grader's own reading of it (``grader_content``).
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
from harness.throughput.grader_loop import grader_content, grader_session, grader_usage, sweep_body
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
        payload = {"prompt": prompt, "max_tokens": w.max_tokens, "temperature": cfg.temperature}
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
        try:
            async with session.post(cfg.url + cfg.endpoint, json=payload) as resp:
                raw = await resp.read()
                body = await resp.json()  # parses the same bytes, like the grader's
                t_end = time.perf_counter()
                if resp.status != 200:
                    text = raw[:EXCERPT].decode("utf-8", errors="replace")
                    return Answer(error=f"HTTP {resp.status} from {cfg.endpoint}: {text}")
                content = grader_content(body)
                grader_usage(body)  # raises where the grader's reading of usage raises
        except asyncio.CancelledError:
            raise
        except (aiohttp.ClientError, TimeoutError, ValueError, LookupError, TypeError) as err:
            # the grader's `except Exception`: whatever raised on the path fails the request
            return Answer(error=f"{type(err).__name__}: {err}"[:EXCERPT])
        choices = body.get("choices") or [{}]
        reason = choices[0].get("finish_reason") if isinstance(choices[0], dict) else None
        usage = body.get("usage", {}).get("completion_tokens")  # absent: None, not the grader's 0
        out, text_tokens = _counted(content, usage if isinstance(usage, int) else None, self.tok)
        finish = reason if isinstance(reason, str) else None
        return Answer((t_end - t_start) * 1000, out, text_tokens, finish, None, content)


@asynccontextmanager
async def sender(cfg: AuditConfig, tok: Tokenizer) -> AsyncIterator[Sender]:
    """The audit's sender: with the grader's aiohttp session for the sweep's chat bodies."""
    if cfg.client == "aiohttp":
        async with grader_session(cfg.timeout_s) as session:
            yield Sender(cfg, tok, session)
    else:
        yield Sender(cfg, tok, None)
