"""Thinking control as the graders request it.

OFF (``chat_template_kwargs.enable_thinking=false``; IFEval, MMLU-Pro, the Paris
contract): the content must carry no think tags. ON (``"thinking": true``;
GPQA-Diamond): a reasoning trace should appear within a small budget, as
``<think>…</think>`` in content, a closing tag only (the template opened it),
or a ``reasoning``/``reasoning_content`` field. The form found is reported.
No switch (MMLU-Pro: lm-eval's payload carries none): a trace there is a warning,
since the grader then measures MMLU-Pro thinking ON.
"""

from __future__ import annotations

from harness.client.records import RequestRecord
from harness.conformance.context import THINK_QUESTION, CheckContext
from harness.conformance.registry import check
from harness.conformance.report import Evidence, Outcome, failed, passed, short, warned
from harness.conformance.rules import think_form, think_leak
from harness.conformance.shapes import unanswered


async def _ask(ctx: CheckContext, mode: str) -> tuple[RequestRecord, Evidence]:
    # "default" sends no switch at all, as the grader's MMLU-Pro bodies do
    flags = {"off": ctx.cfg.thinking_off, "on": ctx.cfg.thinking_on}.get(mode, {})
    body = ctx.chat_body(THINK_QUESTION, max_tokens=ctx.cfg.think_budget, extra=flags)

    async def ask() -> tuple[RequestRecord, Evidence]:
        return await ctx.post(ctx.cfg.chat_endpoint, body)

    result: tuple[RequestRecord, Evidence] = await ctx.memo(f"think:{mode}", ask)
    return result


@check(
    "thinking_off",
    group="thinking",
    title="thinking OFF: no <think> in the answer",
    phase="light",
    needs=("@chat",),
)
async def thinking_off(ctx: CheckContext) -> Outcome:
    cfg = ctx.cfg
    rec, ev = await _ask(ctx, "off")
    if not rec.ok:
        return unanswered(cfg.chat_endpoint, rec, [ev])
    leak = think_leak(rec.text, rec.reasoning, cfg.think_open, cfg.think_close)
    if leak:
        return failed(f"thinking OFF but {leak}: {short(rec.text, 60)}", [ev])
    return passed(f"no think tags in {len(rec.text)} chars of content", [ev])


@check(
    "thinking_on",
    group="thinking",
    title="thinking ON: a reasoning trace appears",
    phase="light",
    needs=("@chat",),
)
async def thinking_on(ctx: CheckContext) -> Outcome:
    cfg = ctx.cfg
    rec, ev = await _ask(ctx, "on")
    if not rec.ok:
        return unanswered(cfg.chat_endpoint, rec, [ev])
    form = think_form(rec.text, rec.reasoning, cfg.think_open, cfg.think_close)
    if form:
        return passed(f"trace within {cfg.think_budget} tokens as {form}", [ev], form=form)
    off, ev_off = await _ask(ctx, "off")
    # The switch changes the chat template's prompt (Qwen's OFF template closes an empty
    # think block): prompts counted differently prove the flag reached the template, so a
    # missing trace is the model's (it does not think), not the server ignoring the flag.
    on_n, off_n = rec.usage_prompt_tokens, off.usage_prompt_tokens
    if off.ok and on_n is not None and off_n is not None and on_n != off_n:
        return passed(
            f"the switch reaches the chat template (prompt {on_n} tokens ON, {off_n} OFF); no "
            f"trace within {cfg.think_budget} tokens: this model does not think there",
            [ev, ev_off],
            form=None,
        )
    # Equal greedy answers do not prove the flag is ignored (a model that does not think
    # answers alike), so neither case fails; the grader reads message.content either way.
    if off.ok and off.text == rec.text:
        return warned(
            f"no trace within {cfg.think_budget} tokens and the same answer as thinking OFF: "
            f"the flag {sorted(cfg.thinking_on)} may be ignored, or the model does not think "
            "(GPQA-Diamond is asked with thinking ON)",
            [ev, ev_off],
            form=None,
        )
    return warned(
        f"no think tag or reasoning field within {cfg.think_budget} tokens, though the answer "
        "differs from thinking OFF (a template that opens <think> shows </think> later)",
        [ev, ev_off],
        form=None,
    )


@check(
    "thinking_default",
    group="thinking",
    title="no thinking switch: what the grader's MMLU-Pro requests meet",
    phase="light",
    needs=("@chat",),
)
async def thinking_default(ctx: CheckContext) -> Outcome:
    """The grader's MMLU-Pro bodies are lm-eval's payload alone: no thinking field at all."""
    cfg = ctx.cfg
    rec, ev = await _ask(ctx, "default")
    if not rec.ok:
        return unanswered(cfg.chat_endpoint, rec, [ev])
    form = think_form(rec.text, rec.reasoning, cfg.think_open, cfg.think_close)
    if form:
        return warned(
            f"your server thinks by default ({form} within {cfg.think_budget} tokens); the "
            "grader's MMLU-Pro requests carry no switch, so MMLU-Pro is answered thinking ON "
            "within its 2048-token budget (a no-think default template avoids this)",
            [ev],
            form=form,
        )
    return passed(f"no trace without a switch ({len(rec.text)} chars of content)", [ev])
