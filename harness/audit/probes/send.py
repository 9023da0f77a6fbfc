"""The audit's probe phase, after the timed rounds: one prompt asked in the graders' two
body shapes on their routes, then streamed (docs/audit.md, "The probe phase").

The prompt is a user message drawn per audit (the unique heads' seed), so no server can
have seen it; its *chat* body is the quality graders' (messages, thinking off as the
profile asks it, the model name on the OpenAI route only), its *prompt* body the latency
grader's (``prompt``, ``max_tokens``, temperature 0), holding the same messages rendered
by Qwen3.5's chat template (harness/chat_template.py): the same tokens to an honest
server. Every request goes through the grader's own client (urllib, ``json.dumps``
defaults, a new connection each), so the shapes differ in the body only.

A set of probes: a warm-up (the prompt body on the latency route: it fills a prefix cache
with the prompt, so no compared probe pays a cold prefill, whose other kernels may round
otherwise), then each way of asking twice, interleaved: the chat body on the OpenAI chat
route and on the quality route, the prompt body on the OpenAI completions route and on the
latency route. The repeats show whether the server is deterministic at temperature 0. A
second, independent set only when the first set's answers or timing split
(harness/audit/probes/stack.py): a verdict never rests on one set.

Then ``stream_consistency``'s streams: the chat body on the OpenAI chat route and the
prompt body on the OpenAI completions route, streamed with usage (aiohttp: urllib cannot
stream; a new connection each); a stream whose text differs from its answer gets a second
look (harness/audit/probes/stream.py).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.audit.config import AuditConfig
from harness.audit.probes.record import Probe, Shape
from harness.audit.probes.rules import STACK, STREAMS
from harness.audit.probes.stream import SECOND_LOOK, needs_second_stream, stream_facts
from harness.audit.rule import Measured
from harness.audit.rules import chosen, wants_second_look
from harness.chat_template import Message, render_qwen35
from harness.client.http import (
    HttpOptions,
    make_session,
    parse_stream,
    send_request,
    stream_payloads,
)
from harness.client.records import RequestRecord
from harness.client.urllib_client import post_like_grader
from harness.graders.qwen import latency_body
from harness.prompts import WORDS
from harness.tokenizer import Tokenizer

CHAT_ROUTE = "/v1/chat/completions"
PROMPT_ROUTE = "/v1/completions"
STREAM = {"stream": True, "stream_options": {"include_usage": True}}


@dataclass(frozen=True)
class Ask:
    """One probe to send: where, in which shape, and whether it repeats an earlier one."""

    route: str
    shape: Shape
    repeat: bool = False
    warmup: bool = False
    stream: bool = False  # stream_consistency: streamed, with usage


def question(seed: int) -> str:
    """The probes' user message: asks for a long answer, drawn per audit."""
    rng = random.Random(f"stack/{seed}")
    who, what, where = rng.sample(WORDS, 3)
    return f"Write a long story about a {who} who finds a {what} near the {where}."


def plan(cfg: AuditConfig, look: int = 0) -> list[Ask]:
    """One set of probes (the module docstring); the second set has no warm-up and no
    streams. ``stream_consistency`` alone asks the OpenAI routes only, twice, then streams."""
    chat, prompt = cfg.chat_endpoint, cfg.endpoint
    named = chosen(cfg.spec, "probes")
    stack = STACK in named
    streams = STREAMS in named and look == 0
    ways = [Ask(r, "chat") for r in dict.fromkeys((CHAT_ROUTE, chat) if stack else (CHAT_ROUTE,))]
    ways += [
        Ask(r, "prompt")
        for r in dict.fromkeys((PROMPT_ROUTE, prompt) if stack else (PROMPT_ROUTE,))
    ]
    again = [Ask(a.route, a.shape, repeat=True) for a in ways]
    warm = [Ask(prompt if stack else PROMPT_ROUTE, "prompt", warmup=True)] if look == 0 else []
    tail = [Ask(CHAT_ROUTE, "chat", stream=True), Ask(PROMPT_ROUTE, "prompt", stream=True)]
    return [*warm, *ways, *again, *(tail if streams else [])]


def body(cfg: AuditConfig, ask: Ask, messages: list[Message]) -> dict[str, Any]:
    """The grader's body of ``ask``'s shape for ``messages``."""
    streamed = STREAM if ask.stream else {}
    if ask.shape == "prompt":
        text = render_qwen35(messages, enable_thinking=False)
        return {**latency_body(text, cfg.spec.stack_max_tokens, 0.0), **streamed}
    out: dict[str, Any] = {"messages": messages}
    if ask.route == CHAT_ROUTE:
        out["model"] = cfg.model
    return {
        **out,
        "max_tokens": cfg.spec.stack_max_tokens,
        "temperature": 0.0,
        **cfg.thinking_off,
        **streamed,
    }


def answer_text(response: dict[str, Any] | None) -> str:
    """``choices[0].text`` (a completion) or ``choices[0].message.content`` (a chat)."""
    choices = (response or {}).get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    if not isinstance(first, dict):
        return ""
    if isinstance(first.get("text"), str):
        return str(first["text"])
    message = first.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else ""


def probe_of(ask: Ask, look: int, rec: RequestRecord, tok: Tokenizer) -> Probe:
    p = Probe(route=ask.route, shape=ask.shape, look=look, repeat=ask.repeat, warmup=ask.warmup,
              stream=ask.stream)  # fmt: skip
    if rec.error is not None or not rec.ok:
        p.error = rec.error.message if rec.error else "failed"
        return p
    p.e2e_ms, p.text = rec.e2e_ms, rec.text if rec.stream else answer_text(rec.response)
    p.output_tokens, p.finish_reason = rec.usage_completion_tokens, rec.finish_reason
    p.text_tokens = tok.count(p.text) if p.text else 0
    return p


async def send(cfg: AuditConfig, ask: Ask, messages: list[Message], look: int,
               tok: Tokenizer) -> Probe:  # fmt: skip
    if ask.stream:
        return await send_stream(cfg, ask, messages, look, tok)
    rec = await asyncio.to_thread(
        post_like_grader, cfg.url + ask.route, body(cfg, ask, messages),
        timeout_s=cfg.timeout_s, endpoint=ask.route,
    )  # fmt: skip
    return probe_of(ask, look, rec, tok)


async def send_stream(cfg: AuditConfig, ask: Ask, messages: list[Message], look: int,
                      tok: Tokenizer) -> Probe:  # fmt: skip
    """A streamed probe on a new connection; its events are read before parse_stream keeps
    only the text (harness/audit/probes/stream.py's facts need each event's finish_reason)."""
    opts = HttpOptions(timeout_s=cfg.timeout_s, new_connection_per_request=True)
    async with make_session(opts) as session:
        rec = await send_request(session, cfg.url + ask.route, body(cfg, ask, messages),
                                 endpoint=ask.route, parse=False)  # fmt: skip
    events = [data for _, data in stream_payloads(rec)]  # before parse_stream drops the reads
    if rec.error is None:
        parse_stream(rec)
    p = probe_of(ask, look, rec, tok)
    if p.ok:
        facts = stream_facts(events)
        p.first_text, p.finish_events = facts.first_text, facts.finish_events
        p.text_after_finish, p.eos_in_text = facts.text_after_finish, facts.eos_in_text
    return p


async def run_probes(
    cfg: AuditConfig, tok: Tokenizer, sink: list[Probe], on_probe: Callable[[Probe], None]
) -> None:
    """The probe phase into ``sink``: one set, and a second when its timing splits."""
    if not chosen(cfg.spec, "probes"):
        return
    messages: list[Message] = [{"role": "user", "content": question(cfg.seed)}]
    for look in (0, 1):
        if look == 1 and not wants_second_look(Measured(cfg.spec, probes=sink), "probes"):
            break
        done = sum(p.look == look for p in sink)  # sent by an interrupted audit: kept
        for ask in plan(cfg, look)[done:]:
            p = await send(cfg, ask, messages, look, tok)
            sink.append(p)
            on_probe(p)
    for s in needs_second_stream(sink):  # a stream that differed: a second look
        second = [Ask(s.route, s.shape, stream=True)] * SECOND_LOOK + [Ask(s.route, s.shape)]
        for ask in second:
            p = await send(cfg, ask, messages, 1, tok)
            sink.append(p)
            on_probe(p)
