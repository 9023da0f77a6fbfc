"""Running the sweep. Official mode is the grader's own loop (grader_loop.py: its
prompts, body, semaphore, counting, wall and rounding, and no request it does not
send: the model name is the profile's, never looked up). Strict mode is harness's
stricter measurement, below.

Strict: for each level, warm-up then a closed loop of timed requests. Every level keeps ``concurrency`` requests in flight until its list is sent;
each worker's next request is due when its previous one ends (the first wave at
the level's start), so dispatch lag = actual send - due time shows whether the
client kept up. Bodies are serialised before a level starts, and answers are
re-tokenised only after its last response, so no CPU work competes with sending.
The runner appends rows to a :class:`ThroughputState`; a Ctrl-C keeps them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import numpy as np

from harness.client.http import HttpOptions, encode_body, make_session
from harness.client.loop import closed_loop
from harness.client.readiness import server_models
from harness.client.records import RequestRecord
from harness.client.token_probe import probe_usage
from harness.graders.paris import grader_prompts, grader_session
from harness.risk import FlagKind, RiskFlag
from harness.throughput.chat_count import chat_prompt_tokens
from harness.throughput.config import ThroughputConfig
from harness.throughput.grader_loop import OnRow, grader_body, run_level_like_grader
from harness.throughput.prompts import prompt_list
from harness.throughput.report import Kind, Phase, RequestRow
from harness.throughput.spotcheck import (
    SpotCheck,
    level_spots,
    make_spot_checks,
    spot_positions,
    verify,
)
from harness.throughput.state import ThroughputState
from harness.tokenizer import Tokenizer

EXCERPT = 200
OnStart = Callable[[int, Phase, int], None]  # (level, phase, requests)
OnDone = Callable[[int, Phase, RequestRecord], None]
# ("start" | "end", "throughput", "c=<level>"), awaited between levels: the /metrics scrapes
OnEdge = Callable[[str, str, str], Awaitable[None]]


@dataclass(frozen=True)
class Item:
    """One request of a level: a random prompt (with its known length) or a spot check."""

    kind: Kind
    prompt: str
    prompt_tokens: int
    spot: SpotCheck | None = None


def chat_body(cfg: ThroughputConfig, model: str, item: Item) -> dict[str, Any]:
    """The grader's non-streaming chat body; ``--force-length`` adds vLLM's length knobs
    to random prompts only (a forced spot-check answer would bury its number in filler)."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": "user", "content": item.prompt}],
        "max_tokens": cfg.max_tokens,
        "temperature": cfg.spot_temperature if item.kind == "spot" else cfg.temperature,
    }
    if cfg.send_top_p:
        body["top_p"] = cfg.top_p
    if cfg.force_length and item.kind == "random":
        body["ignore_eos"] = True
        body["min_tokens"] = cfg.max_tokens
    body.update(cfg.extra_body)
    return body


def counted(tok: Tokenizer, kind: Kind, text: str, spot: SpotCheck | None = None) -> Item:
    """An item whose prompt is counted by the grader's rule: the chat-templated text of its
    own message (chat_count.py), never a constant per prompt length."""
    return Item(kind, text, chat_prompt_tokens(tok, [{"role": "user", "content": text}]), spot)


def level_items(cfg: ThroughputConfig, tok: Tokenizer, level: int) -> tuple[list[Item], list[Item]]:
    """(warm-up items, timed items) of a strict level: fresh exact-length prompts per level,
    harness's spot checks inserted (harness's own procedure; official is grader_loop.py)."""
    n_warm, n_timed = cfg.warmup, cfg.requests_per_level
    prompts = prompt_list(
        tok, n_warm + n_timed, cfg.prompt_tokens, seed=cfg.seed, stream=f"level-{level}"
    )
    warm = [counted(tok, "random", p) for p in prompts[:n_warm]]
    timed: list[Item] = [counted(tok, "random", p) for p in prompts[n_warm:]]
    spots = make_spot_checks(cfg.spot_checks, seed=cfg.seed, stream=f"level-{level}")
    for pos, spot in zip(spot_positions(n_timed, len(spots)), spots, strict=True):
        timed.insert(pos, counted(tok, "spot", spot.question, spot))
    return warm, timed


def to_row(
    cfg: ThroughputConfig,
    tok: Tokenizer,
    rec: RequestRecord,
    item: Item,
    *,
    level: int,
    phase: Phase,
    index: int,
    t0_ns: int,
) -> RequestRow:
    answer = rec.reasoning + rec.text
    row = RequestRow(
        level=level,
        phase=phase,
        index=index,
        kind=item.kind,
        ok=rec.ok,
        status=rec.status,
        error=rec.error.one_line() if rec.error else None,
        error_kind=str(rec.error.kind) if rec.error else None,
        error_body=(rec.error.body_excerpt or None) if rec.error else None,
        resent=rec.resent,
        prompt_tokens=item.prompt_tokens,
        server_prompt_tokens=rec.usage_prompt_tokens,
        output_tokens=tok.count(answer) if rec.ok else None,
        server_output_tokens=rec.usage_completion_tokens,
        finish_reason=rec.finish_reason,
        e2e_ms=rec.e2e_ms if rec.ok else None,
        dispatch_lag_ms=rec.dispatch_lag_ms,
        start_ms=(rec.send_ns - t0_ns) / 1e6 if rec.send_ns else None,
        end_ms=(rec.end_ns - t0_ns) / 1e6 if rec.end_ns else None,
        think_tag=bool(rec.reasoning) or cfg.think_open in rec.text or cfg.think_close in rec.text,
    )
    if item.spot is not None:
        row.spot_question = item.spot.question
        row.spot_expected = item.spot.answer
        row.spot_passed = rec.ok and verify(answer, item.spot.answer, cfg.think_close)
        row.answer_excerpt = answer[:EXCERPT]
    return row


async def run_phase(
    session: aiohttp.ClientSession,
    cfg: ThroughputConfig,
    tok: Tokenizer,
    state: ThroughputState,
    items: list[Item],
    *,
    level: int,
    phase: Phase,
    on_start: OnStart | None,
    on_done: OnDone | None,
) -> None:
    if not items:
        return
    bodies = [encode_body(chat_body(cfg, state.model, it)) for it in items]
    if state.probe_body is None and phase == "timed":
        state.probe_body = chat_body(cfg, state.model, items[0])
    if on_start:
        on_start(level, phase, len(items))

    def done(_: int, rec: RequestRecord) -> None:
        if on_done:
            on_done(level, phase, rec)

    cpu0 = time.process_time()
    t0, records = await closed_loop(
        session, cfg.endpoint_url, cfg.endpoint, bodies, level, stream=False, on_done=done
    )
    if phase == "timed":
        # this process's CPU while the level ran: the client's cost, to compare with wall time
        state.cpu_s[level] = time.process_time() - cpu0
    for i, (rec, item) in enumerate(zip(records, items, strict=True)):
        if rec is not None:
            state.rows.append(
                to_row(cfg, tok, rec, item, level=level, phase=phase, index=i, t0_ns=t0)
            )


async def choose_model(cfg: ThroughputConfig, state: ThroughputState) -> str:
    """``--model`` if given; else the profile's model when the server serves it (or does not
    say what it serves); else the first served name, flagged (the grader sends its own)."""
    async with aiohttp.ClientSession() as s:
        state.server_models = await server_models(s, cfg.url)
    if cfg.model:
        return cfg.model
    served = state.server_models
    if not served or cfg.profile_model in served:
        return cfg.profile_model
    state.flags.append(
        RiskFlag(
            kind=FlagKind.SERVED_MODEL,
            text=f"the server does not serve {cfg.profile_model!r}; sent {served[0]!r} "
            f"(served: {', '.join(served)})",
            source="throughput",
        )
    )
    return served[0]


def grader_spot_pool(cfg: ThroughputConfig, rng: random.Random) -> list[SpotCheck]:
    """The grader's pool, shuffled once per run (harness's own questions if the profile has none)."""
    pool = [SpotCheck(q.question, q.answer) for q in cfg.spec.spot_pool] or make_spot_checks(
        8, seed=cfg.seed, stream="pool"
    )
    rng.shuffle(pool)
    return pool


async def run_official_sweep(
    cfg: ThroughputConfig,
    tok: Tokenizer,
    state: ThroughputState,
    *,
    prompts: list[str] | None = None,
    rng: random.Random | None = None,
    on_start: OnStart | None = None,
    on_edge: OnEdge | None = None,
    on_row: OnRow | None = None,
) -> None:
    """The grader's sweep. ``prompts`` / ``rng`` replace the grader's unseeded draws
    (default: built from ``cfg.seed``), so a run can be repeated and compared."""
    state.model = cfg.model or cfg.profile_model
    state.server_models_note = "not taken: official mode sends only the grader's requests"
    if prompts is None:
        # the grader builds 128 and uses the first 64 (62 once 2 are replaced); the draws
        # are sequential, so building only those needed gives the same first prompts
        prompts = grader_prompts(
            tok,
            max(cfg.requests_per_level, cfg.warmup),
            cfg.prompt_tokens,
            np.random.default_rng(cfg.seed),
            rounds=cfg.prompt_rounds,
        )
    # a usage probe (--usage-probe on, after the sweep) re-sends the first prompt's body
    state.probe_body = grader_body(cfg, state.model, prompts[0], False)
    rng = rng or random.Random(cfg.seed)
    pool = grader_spot_pool(cfg, rng)
    async with grader_session(cfg.timeout_s) as session:
        for i, level in enumerate(cfg.levels):
            if on_start:
                on_start(level, "timed", cfg.requests_per_level)
            spots = level_spots(pool, i, cfg.spot_checks)
            if on_edge:  # a harness extra (--metrics on), outside the level's wall
                await on_edge("start", "throughput", f"c={level}")
            cpu0 = time.process_time()
            rows, numbers = await run_level_like_grader(
                session, cfg, tok, state.model, prompts, level, spots, rng, on_row
            )
            state.cpu_s[level] = time.process_time() - cpu0
            if on_edge:
                await on_edge("end", "throughput", f"c={level}")
            state.rows.extend(rows)
            state.grader[level] = numbers
            state.levels_done.append(level)


async def run_sweep(
    cfg: ThroughputConfig,
    tok: Tokenizer,
    state: ThroughputState,
    *,
    on_start: OnStart | None = None,
    on_done: OnDone | None = None,
    on_edge: OnEdge | None = None,
    on_row: OnRow | None = None,
) -> None:
    """Every level in order: warm-up (discarded), then the timed list. Strict mode reports
    each request's record (``on_done``), official mode the grader's row (``on_row``)."""
    if cfg.mode == "official":
        await run_official_sweep(cfg, tok, state, on_start=on_start, on_edge=on_edge, on_row=on_row)
        return
    state.model = await choose_model(cfg, state)
    opts = HttpOptions(timeout_s=cfg.timeout_s, connect_timeout_s=cfg.connect_timeout_s)
    async with make_session(opts) as session:
        for level in cfg.levels:
            warm, timed = level_items(cfg, tok, level)
            if on_edge:
                await on_edge("start", "throughput", f"c={level}")
            for phase, items in (("warmup", warm), ("timed", timed)):
                await run_phase(
                    session,
                    cfg,
                    tok,
                    state,
                    items,
                    level=level,
                    phase=phase,  # type: ignore[arg-type]
                    on_start=on_start,
                    on_done=on_done,
                )
            if on_edge:
                await on_edge("end", "throughput", f"c={level}")
            state.levels_done.append(level)


async def run_probe(cfg: ThroughputConfig, tok: Tokenizer, state: ThroughputState) -> None:
    """After the sweep, when answers' usage is unsettled (analysis.unsettled_rows): the
    sweep's first body once more, asking for the token ids (harness/usage.py)."""
    if state.probe_body is None:
        return
    opts = HttpOptions(timeout_s=cfg.timeout_s, connect_timeout_s=cfg.connect_timeout_s)
    async with make_session(opts) as session:
        state.usage_checks.append(
            await probe_usage(
                session,
                cfg.endpoint_url,
                cfg.endpoint,
                state.probe_body,
                tok,
                mode="throughput",
                name="sweep",
                prompt="the sweep's first prompt",
            )
        )
