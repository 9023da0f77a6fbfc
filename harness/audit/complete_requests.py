"""The requests of ``complete_outputs`` (docs/audit.md): per audited bucket, the grader's
request (the repeated filler, its ``max_tokens``), and when its answer ended early, the
same prompt continued with that answer's text at temperature 0. A continuation that goes
on gets a second, independent look (both requests again) before the rule can fail.

Every request goes through the grader's own client, to the grader's latency route.
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.audit.complete import CONTINUE_MAX_TOKENS, finished
from harness.audit.config import AuditConfig
from harness.audit.continuation import Continuation
from harness.audit.controls import filler
from harness.audit.hooks import AuditHooks
from harness.audit.workload import Workload
from harness.client.records import RequestRecord
from harness.client.urllib_client import post_like_grader
from harness.tokenizer import Tokenizer


async def _post(cfg: AuditConfig, payload: dict[str, Any]) -> RequestRecord:
    return await asyncio.to_thread(
        post_like_grader, cfg.url + cfg.endpoint, payload, timeout_s=cfg.timeout_s,
        endpoint=cfg.endpoint,
    )  # fmt: skip


def _failed(rec: RequestRecord) -> str | None:
    return None if rec.error is None else rec.error.message


def _tokens(rec: RequestRecord, tok: Tokenizer) -> int:
    if rec.usage_completion_tokens is not None:
        return rec.usage_completion_tokens
    return tok.count(rec.text) if rec.text else 0


async def check_once(
    cfg: AuditConfig, bucket: Workload, prompt: str, tok: Tokenizer, attempt: int
) -> Continuation:
    """One look: the grader's request, then (if its answer ended early) its continuation."""
    c = Continuation(bucket=bucket.name, attempt=attempt, max_tokens=bucket.max_tokens)
    payload = {"prompt": prompt, "max_tokens": bucket.max_tokens, "temperature": cfg.temperature}
    rec = await _post(cfg, payload)
    c.requests, c.error = 1, _failed(rec)
    if c.error is not None:
        return c
    c.answer_tokens, c.answer_finish, c.answer_text = _tokens(rec, tok), rec.finish_reason, rec.text
    if not c.ended_early:
        return c
    c.continue_max_tokens = min(CONTINUE_MAX_TOKENS, bucket.max_tokens)
    rec = await _post(
        cfg,
        {"prompt": prompt + rec.text, "max_tokens": c.continue_max_tokens, "temperature": 0.0},
    )
    c.requests, c.error = 2, _failed(rec)
    if c.error is None:
        c.continued_tokens, c.continued_finish = _tokens(rec, tok), rec.finish_reason
        c.continued_text = rec.text
    return c


async def check_bucket(
    cfg: AuditConfig,
    bucket: Workload,
    tok: Tokenizer,
    sink: list[Continuation],
    hooks: AuditHooks,
) -> None:
    """The bucket's checks into ``sink``: one look, and a second when the first says cut."""
    prompt = filler(cfg.sentence, bucket.filler_repeats)
    for attempt in (1, 2):
        c = await check_once(cfg, bucket, prompt, tok, attempt)
        sink.append(c)
        hooks.continuation(c)
        if finished(c) is not False:
            return
