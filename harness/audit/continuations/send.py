"""The requests of ``complete_outputs`` (docs/audit.md): per audited bucket, the grader's
request (the repeated filler, its ``max_tokens``), and when its answer ended early, the
same prompt continued with that answer's text at temperature 0 (the grader's
``max_tokens``: a cut at a count shows that count). A continuation that runs on gets its
probes: the prompt continued from inside the answer (harness/audit/continuations/rule.py
``probe_starts``), where the answer's end stays in its text or moves with the start.

Every request goes through the grader's own client, to the grader's latency route.
"""

from __future__ import annotations

import asyncio
from typing import Any

from harness.audit.config import AuditConfig
from harness.audit.continuations.record import Continuation
from harness.audit.continuations.rule import finished, probe_starts
from harness.audit.hooks import AuditHooks
from harness.audit.timed.controls import filler
from harness.audit.workload import Workload
from harness.client.records import RequestRecord
from harness.client.urllib_client import post_like_grader
from harness.graders.qwen import latency_body
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
    payload = latency_body(prompt, bucket.max_tokens, cfg.temperature)
    rec = await _post(cfg, payload)
    c.requests, c.error = 1, _failed(rec)
    if c.error is not None:
        return c
    c.answer_tokens, c.answer_finish, c.answer_text = _tokens(rec, tok), rec.finish_reason, rec.text
    if not c.ended_early:
        return c
    c.start, c.start_text = tok.count(rec.text), rec.text
    await _continue(cfg, bucket, prompt, tok, c)
    c.requests = 2
    return c


async def _continue(
    cfg: AuditConfig, bucket: Workload, prompt: str, tok: Tokenizer, c: Continuation
) -> None:
    """``prompt`` + ``c.start_text``, continued at temperature 0, into ``c``."""
    c.continue_max_tokens = bucket.max_tokens
    rec = await _post(cfg, latency_body(prompt + c.start_text, c.continue_max_tokens, 0.0))
    c.error = _failed(rec)
    if c.error is None:
        c.continued_tokens, c.continued_finish = _tokens(rec, tok), rec.finish_reason
        c.continued_text = rec.text
        c.end = (c.start or 0) + (tok.count(rec.text) if rec.text else 0)


async def check_bucket(
    cfg: AuditConfig,
    bucket: Workload,
    tok: Tokenizer,
    sink: list[Continuation],
    hooks: AuditHooks,
) -> None:
    """The bucket's checks into ``sink``: the answer continued after its end, and when that
    runs on, continued from inside it (the probes)."""
    prompt = filler(cfg.sentence, bucket.filler_repeats)
    c = await check_once(cfg, bucket, prompt, tok, 1)
    sink.append(c)
    hooks.continuation(c)
    if finished(c) is not False:
        return
    ids = tok.encode(c.answer_text)
    for attempt, k in enumerate(probe_starts(c), start=2):
        p = c.model_copy(update={"attempt": attempt, "start": k, "end": None,
                                 "start_text": tok.decode(ids[:k]), "continued_tokens": None,
                                 "continued_finish": None, "continued_text": "",
                                 "requests": 1})  # fmt: skip
        await _continue(cfg, bucket, prompt, tok, p)
        sink.append(p)
        hooks.continuation(p)
