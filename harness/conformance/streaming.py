"""Streaming: SSE framing (``data:`` events, ``[DONE]``), usage with
``stream_options.include_usage``, and the same text as the non-streamed greedy answer."""

from __future__ import annotations

from typing import Any

from harness.conformance.context import STORY_PROMPT, STORY_QUESTION, CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Outcome, failed, passed
from harness.conformance.rules import first_difference
from harness.conformance.sameness import greedy
from harness.conformance.shapes import request_failure

STREAM = {"stream": True, "stream_options": {"include_usage": True}}


async def _stream_check(ctx: CheckContext, path: str, body: dict[str, Any]) -> Outcome:
    rec, ev = await ctx.post(path, {**body, **STREAM})
    if not rec.ok:
        return failed(request_failure(path, rec), [ev])
    if not rec.events:
        return failed(f"{path} streamed no text events", [ev])
    if rec.usage_total_tokens is None:
        return failed(
            f"{path} streamed no usage although stream_options.include_usage was true", [ev]
        )
    framing = f"{len(rec.events)} data: events, [DONE], usage {rec.usage_completion_tokens} tokens"
    if ctx.failed_dependency(("determinism",)):
        return passed(f"{framing}; text not compared (the server is not deterministic)", [ev])
    ref, ev_ref = await greedy(ctx, path)
    if not ref.ok:
        return passed(f"{framing}; text not compared (the non-streamed request failed)", [ev])
    diff = first_difference(rec.text, ref.text)
    if diff:
        return failed(
            f"streamed text differs from the non-streamed greedy text: {diff}", [ev, ev_ref]
        )
    return passed(f"{framing}; same text as non-streamed", [ev, ev_ref])


@check(
    "stream_chat",
    group="streaming",
    title="chat streaming: SSE framing, usage, same text",
    phase="quiet",
    needs=("chat_completions",),
)
async def stream_chat(ctx: CheckContext) -> Outcome:
    return await _stream_check(ctx, "/v1/chat/completions", ctx.chat_body(STORY_QUESTION))


@check(
    "stream_completions",
    group="streaming",
    title="completions streaming: SSE framing, usage, same text",
    phase="quiet",
    needs=("completions",),
)
async def stream_completions(ctx: CheckContext) -> Outcome:
    return await _stream_check(ctx, "/v1/completions", ctx.completion_body(STORY_PROMPT))
