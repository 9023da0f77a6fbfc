"""Honest accounting: usage matches the client's token counts; max_tokens is a hard limit."""

from __future__ import annotations

from typing import Any

from harness.client.records import RequestRecord
from harness.conformance.context import STORY_PROMPT, STORY_QUESTION, CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed
from harness.conformance.rules import usage_findings
from harness.conformance.shapes import request_failure


def _body(ctx: CheckContext, max_tokens: int) -> tuple[str, dict[str, Any], bool]:
    """(path, body, is_chat) for the profile's usage endpoint."""
    path = ctx.cfg.usage_endpoint
    if path.endswith("/chat/completions"):
        return path, ctx.chat_body(STORY_QUESTION, max_tokens=max_tokens), True
    return path, ctx.completion_body(STORY_PROMPT, max_tokens=max_tokens), False


def generated_tokens(ctx: CheckContext, rec: RequestRecord) -> int:
    """Tokens the client counts in what came back (a reasoning trace is generated too)."""
    n = ctx.tok.count(rec.text)
    if rec.reasoning:
        n += ctx.tok.count(rec.reasoning)
    return n


@check(
    "usage",
    group="usage",
    title="usage matches the client's token counts; total = prompt + completion",
    phase="light",
)
async def usage(ctx: CheckContext) -> Outcome:
    cfg = ctx.cfg
    path, body, is_chat = _body(ctx, cfg.max_tokens)
    rec, ev = await ctx.post(path, body)
    if not rec.ok:
        return failed(request_failure(path, rec), [ev])
    evidence: list[Evidence] = [ev]
    completion_client = generated_tokens(ctx, rec)
    server_prompt = None
    if is_chat:
        # The chat template's tokens are the server's business: compare what can be compared.
        prompt_client = rec.usage_prompt_tokens or 0
    else:
        prompt_client = ctx.tok.count(STORY_PROMPT)
        server_prompt = await ctx.server_count(STORY_PROMPT)
        if server_prompt is not None:
            evidence.append(
                Evidence(path="/tokenize", request=STORY_PROMPT, response=f"count {server_prompt}")
            )
    found = usage_findings(
        prompt_usage=rec.usage_prompt_tokens,
        completion_usage=rec.usage_completion_tokens,
        total_usage=rec.usage_total_tokens,
        prompt_client=prompt_client,
        completion_client=completion_client,
        tolerance=cfg.usage_tolerance,
    )
    details = {
        "tokenizer": ctx.tok.name,
        "tolerance_tokens": cfg.usage_tolerance,
        "usage": [rec.usage_prompt_tokens, rec.usage_completion_tokens, rec.usage_total_tokens],
        "client_prompt_tokens": None if is_chat else prompt_client,
        "server_tokenize_prompt_tokens": server_prompt,
        "client_completion_tokens": completion_client,
    }
    tokenize = "" if server_prompt is None else f", /tokenize {server_prompt}"
    summary = (
        f"prompt {rec.usage_prompt_tokens} (client {'-' if is_chat else prompt_client}{tokenize}), "
        f"completion {rec.usage_completion_tokens} (re-tokenised {completion_client}), "
        f"total {rec.usage_total_tokens}; ±{cfg.usage_tolerance} with {ctx.tok.name}"
    )
    if found.ok:
        return passed(summary, evidence, **details)
    reason = "; ".join(found.problems)
    if server_prompt is not None and server_prompt == rec.usage_prompt_tokens != prompt_client:
        reason += (
            f" — the server's /tokenize agrees with its usage: it counts with another "
            f"tokenizer than {ctx.tok.name} (pass --tokenizer with the served model's "
            "tokenizer.json or folder)"
        )
    return failed(reason, evidence, **details)


@check(
    "max_tokens",
    group="max_tokens",
    title="never more tokens than max_tokens; finish_reason 'length' at the limit",
    phase="light",
)
async def max_tokens(ctx: CheckContext) -> Outcome:
    cfg = ctx.cfg
    limit = cfg.limit_tokens
    path, body, _ = _body(ctx, limit)
    rec, ev = await ctx.post(path, body)
    if not rec.ok:
        return failed(request_failure(path, rec), [ev])
    n = generated_tokens(ctx, rec)
    details = {
        "max_tokens": limit,
        "client_tokens": n,
        "usage_completion_tokens": rec.usage_completion_tokens,
        "finish_reason": rec.finish_reason,
    }
    # Re-tokenised text may differ from the generated ids by a token or two: the tolerance.
    if n > limit + cfg.usage_tolerance:
        return failed(
            f"asked max_tokens={limit}, got {n} tokens (re-tokenised with {ctx.tok.name}, "
            f"±{cfg.usage_tolerance}): the limit is not respected",
            [ev],
            **details,
        )
    if rec.finish_reason not in ("length", "stop"):
        return failed(
            f"finish_reason is {rec.finish_reason!r}, expected 'length' or 'stop'", [ev], **details
        )
    hit = (
        rec.usage_completion_tokens == limit
        if rec.usage_completion_tokens is not None
        else n >= limit
    )
    if hit and rec.finish_reason != "length":
        return failed(
            f"the answer stopped at the limit ({limit} tokens) but finish_reason is "
            f"{rec.finish_reason!r}, expected 'length'",
            [ev],
            **details,
        )
    return passed(
        f"max_tokens={limit}: {n} tokens (re-tokenised), usage {rec.usage_completion_tokens}, "
        f"finish_reason {rec.finish_reason!r}",
        [ev],
        **details,
    )
