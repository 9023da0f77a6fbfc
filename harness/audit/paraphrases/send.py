"""The requests of ``benchmark_detection``'s quality half (docs/audit.md, "What it
sends"): the quality graders' items (harness/grader_items.py) and a light paraphrase of
each, interleaved.

A look asks each of the profile's ``paraphrase_items`` items twice, as the grader sends it
and paraphrased, one after the other, the original first for every other item (the order
turns with the look, and the second look goes through the items backwards), so neither
form is always first: whichever comes first pays the item's prefill, which the other then
finds in a prefix cache. Bodies are the graders' chat bodies on the quality route (one
user message, no ``model``, temperature 0, thinking as the profile's benchmark of that
name asks it, else as the Efficient Qwen graders do), with ``paraphrase_max_tokens`` for ``max_tokens`` (the grader's own limit
would cost minutes a request), through the grader's own client. A second, independent look
(another paraphrase of each item) only when the first one splits
(harness/audit/paraphrases/rule.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from harness.audit.config import AuditConfig
from harness.audit.paraphrases.record import Asked, Form
from harness.audit.probes.send import answer_text
from harness.audit.rule import Measured
from harness.audit.rules import chosen, wants_second_look
from harness.client.urllib_client import post_like_grader
from harness.grader_items import GraderItem, grader_items
from harness.tokenizer import Tokenizer


def plan(items: list[GraderItem], look: int) -> list[tuple[GraderItem, Form]]:
    """One look's requests in order (the module docstring)."""
    ordered = items if look == 0 else items[::-1]
    out: list[tuple[GraderItem, Form]] = []
    for i, item in enumerate(ordered):
        pair: list[Form] = ["original", "paraphrase"] if (i + look) % 2 == 0 else [
            "paraphrase", "original"]  # fmt: skip
        out += [(item, form) for form in pair]
    return out


def body(cfg: AuditConfig, item: GraderItem, text: str) -> dict[str, Any]:
    """The quality grader's chat body for ``text`` (run_quality_local.py's shape)."""
    on = cfg.thinking_by_benchmark.get(item.benchmark, item.thinking)
    thinking = cfg.thinking_on if on else cfg.thinking_off
    return {
        "messages": [{"role": "user", "content": text}],
        "max_tokens": cfg.spec.paraphrase_max_tokens,
        "temperature": 0.0,
        **thinking,
    }


async def ask(cfg: AuditConfig, item: GraderItem, form: Form, look: int, tok: Tokenizer) -> Asked:
    text = item.text if form == "original" else item.paraphrase(look)
    a = Asked(benchmark=item.benchmark, item=item.key, form=form, look=look, text=text)
    rec = await asyncio.to_thread(
        post_like_grader, cfg.url + cfg.chat_endpoint, body(cfg, item, text),
        timeout_s=cfg.timeout_s, endpoint=cfg.chat_endpoint,
    )  # fmt: skip
    if rec.error is not None or not rec.ok:
        a.error = rec.error.message if rec.error else "failed"
        return a
    a.e2e_ms, a.finish_reason = rec.e2e_ms, rec.finish_reason
    a.output_tokens = rec.usage_completion_tokens
    if a.output_tokens is None:
        a.output_tokens = tok.count(answer_text(rec.response))
    return a


async def run_paraphrases(
    cfg: AuditConfig, tok: Tokenizer, sink: list[Asked], on_asked: Callable[[Asked], None]
) -> None:
    """The quality half's requests into ``sink``: one look, and a second when it splits."""
    if not chosen(cfg.spec, "paraphrases") or not cfg.spec.paraphrase_items:
        return
    items = grader_items(cfg.data_dir)[: cfg.spec.paraphrase_items]
    for look in (0, 1):
        if look == 1 and not wants_second_look(Measured(cfg.spec, paraphrases=sink), "paraphrases"):
            break
        done = sum(a.look == look for a in sink)  # asked by an interrupted audit: kept
        for item, form in plan(items, look)[done:]:
            a = await ask(cfg, item, form, look, tok)
            sink.append(a)
            on_asked(a)
