"""Same input, same output: greedy determinism, and one model stack behind every endpoint.

The rules forbid routing by endpoint (a fast model for the latency route, a good
one for quality): the same greedy prompt through ``/v1/completions`` and
``/invocations`` must give the same text. The comparison is harness/sameness.py's, which
``harness audit``'s rule ``one_stack`` shares (it also asks the quality routes' chat body
and its templated prompt: docs/audit.md).
"""

from __future__ import annotations

from harness.client.records import RequestRecord
from harness.conformance.context import STORY_PROMPT, STORY_QUESTION, CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed, short
from harness.conformance.shapes import request_failure, unanswered
from harness.sameness import first_difference, split


async def greedy(ctx: CheckContext, path: str) -> tuple[RequestRecord, Evidence]:
    """The reference greedy answer of ``path`` (asked once per run, shared by checks)."""
    body = (
        ctx.chat_body(STORY_QUESTION)
        if path.endswith("/chat/completions")
        else ctx.completion_body(STORY_PROMPT)
    )

    async def ask() -> tuple[RequestRecord, Evidence]:
        return await ctx.post(path, body)

    result: tuple[RequestRecord, Evidence] = await ctx.memo(f"greedy:{path}", ask)
    return result


async def again(ctx: CheckContext, path: str) -> tuple[RequestRecord, Evidence]:
    body = (
        ctx.chat_body(STORY_QUESTION)
        if path.endswith("/chat/completions")
        else ctx.completion_body(STORY_PROMPT)
    )
    return await ctx.post(path, body)


@check(
    "determinism",
    group="determinism",
    title="the same greedy request twice gives the same text",
    phase="quiet",
)
async def determinism(ctx: CheckContext) -> Outcome:
    path = ctx.cfg.usage_endpoint
    (a, ev_a), (b, ev_b) = await greedy(ctx, path), await again(ctx, path)
    for rec in (a, b):
        if not rec.ok:
            return failed(request_failure(path, rec), [ev_a, ev_b])
    diff = first_difference(a.text, b.text)
    if diff:
        return failed(f"two greedy requests to {path} gave different texts: {diff}", [ev_a, ev_b])
    return passed(f"{path} twice, temperature 0: identical ({len(a.text)} chars)", [ev_a, ev_b])


@check(
    "one_stack",
    group="one_stack",
    title="/v1/completions and /invocations give the same greedy text",
    phase="quiet",
    needs=("determinism", "completions", "invocations_completion"),
)
async def one_stack(ctx: CheckContext) -> Outcome:
    (a, ev_a), (b, ev_b) = await greedy(ctx, "/v1/completions"), await greedy(ctx, "/invocations")
    for path, rec in (("/v1/completions", a), ("/invocations", b)):
        if not rec.ok:
            return unanswered(path, rec, [ev_a, ev_b])
    different = split({"/v1/completions": a.text, "/invocations": b.text})
    if different:
        return failed(
            "the same greedy prompt gives different text on /v1/completions and /invocations "
            f"(the rules forbid routing by endpoint): {different.difference}",
            [ev_a, ev_b],
        )
    return passed(f"same greedy text on both routes: {short(a.text, 40)}", [ev_a, ev_b])
