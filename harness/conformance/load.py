"""Load the graders put on a server: the long prompt, and N simultaneous requests."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from harness.client.records import RequestRecord
from harness.conformance.context import CheckContext
from harness.conformance.registry import check, family
from harness.conformance.report import Evidence, Outcome, failed, passed
from harness.conformance.rules import latency_spread
from harness.conformance.shapes import request_failure
from harness.prompts import exact_prompt


async def _max_model_len(ctx: CheckContext) -> int | None:
    """vLLM lists ``max_model_len`` in ``/v1/models``; other servers may not."""
    from harness.client.http import get_json

    status, data, _ = await get_json(ctx.session, ctx.cfg.url + "/v1/models")
    if status != 200 or not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    for item in data["data"]:
        if isinstance(item, dict) and isinstance(item.get("max_model_len"), int):
            return int(item["max_model_len"])
    return None


@check(
    "long_input",
    group="long_input",
    title="a long prompt (the long bucket's length) is accepted",
    phase="background",
)
async def long_input(ctx: CheckContext) -> Outcome:
    cfg = ctx.cfg
    n = cfg.long_prompt_tokens
    prompt = await asyncio.to_thread(exact_prompt, ctx.long_tok, n, seed=0, index=0)
    body = ctx.completion_body(prompt, max_tokens=cfg.long_max_tokens_sent)
    rec, ev = await ctx.post(cfg.long_endpoint, body, light=False)
    details: dict[str, Any] = {"prompt_tokens": n, "tokenizer": ctx.long_tok.name}
    if not rec.ok:
        return failed(
            f"a {n}-token prompt: {request_failure(cfg.long_endpoint, rec)}", [ev], **details
        )
    limit = await _max_model_len(ctx)
    details.update(usage_prompt_tokens=rec.usage_prompt_tokens, max_model_len=limit)
    seconds = (rec.end_ns or rec.send_ns) - rec.send_ns
    took = f"{seconds / 1e9:.1f} s"
    need = n + cfg.long_bucket_max_tokens
    if limit is not None and limit < need:
        return failed(
            f"{n}-token prompt accepted, but max_model_len {limit} < {n} + "
            f"{cfg.long_bucket_max_tokens} (the long bucket's max_tokens): the grader's "
            "long requests will be rejected",
            [ev],
            **details,
        )
    room = "" if limit is None else f"; max_model_len {limit} ≥ {need}"
    return passed(
        f"{n} tokens ({ctx.long_tok.name}) accepted on {cfg.long_endpoint} in {took}, server "
        f"counted {rec.usage_prompt_tokens}{room}",
        [ev],
        **details,
    )


def _failure_summary(bad: list[RequestRecord]) -> str:
    kinds = Counter(
        f"HTTP {r.status}"
        if r.status and r.status >= 400
        else str(r.error.kind if r.error else "?")
        for r in bad
    )
    return ", ".join(f"{k} ×{v}" for k, v in kinds.most_common())


@family(
    "concurrency",
    group="concurrency",
    title="N simultaneous requests all succeed",
    phase="load",
    needs=("@chat",),
)
async def concurrency(ctx: CheckContext, n: int) -> Outcome:
    cfg = ctx.cfg
    path = cfg.chat_endpoint
    bodies = [
        ctx.chat_body(
            f"Request {i}: name a colour and a fruit.", max_tokens=cfg.concurrency_max_tokens
        )
        for i in range(n)
    ]
    results = await asyncio.gather(*(ctx.post(path, b, light=False) for b in bodies))
    recs = [r for r, _ in results]
    ok = [r for r in recs if r.ok]
    bad = [(r, ev) for r, ev in results if not r.ok]
    spread = latency_spread([r.e2e_ms for r in ok if r.e2e_ms is not None])
    evidence: list[Evidence] = [ev for _, ev in bad[:2]] + [ev for r, ev in results if r.ok][:1]
    details: dict[str, Any] = {"requests": n, "ok": len(ok), **spread}
    shown = (
        f"latency {spread['min_ms']:.0f}–{spread['max_ms']:.0f} ms (p50 {spread['p50_ms']:.0f})"
        if spread
        else "no latency"
    )
    if bad:
        first = request_failure(path, bad[0][0])
        return failed(
            f"{len(bad)} of {n} simultaneous requests failed ({_failure_summary([r for r, _ in bad])}); "
            f"first: {first}; {shown}",
            evidence,
            **details,
        )
    return passed(f"{n}/{n} ok on {path}; {shown}", evidence, **details)
