"""The Paris grader's sweep loop, reproduced for official mode (docs/throughput.md).

Per level, as ``eval/throughput/run_throughput.py`` does it:

- one ``asyncio.Semaphore(c)``; 2 warm-up requests with ``prompts[0]`` and
  ``prompts[1]`` (gathered, discarded);
- 64 timed requests: ``random.sample(range(64), 2)`` positions REPLACED by the
  level's spot checks, the other positions take ``prompts[0], prompts[1], …``
  in order;
- every request counts its prompt on the chat-templated text BEFORE it waits
  for a slot, and its completion (``message.content`` only) inside the slot;
- the wall runs from before the level's coroutines are created to after they
  are gathered; tok/s = verified tokens of the successful timed requests /
  wall, rounded to 2 decimals (rounded again before weighting, by the caller).

What one request sends and how its answer is read (the session, the chat body, the
``json=`` post, the reading of ``content`` and ``usage``, what fails it) is the grader's,
defined once in harness/graders/paris.py; a status other than 200 fails it too. The
random draws (spot positions, pool shuffle) come from the ``random.Random`` passed in: the
grader uses the global one, unseeded; harness seeds it (the seam tests use).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from harness.client.failure import ErrorKind, error_kind, excerpt
from harness.graders.paris import post_sweep, sweep_body
from harness.throughput.chat_count import Message, chat_prompt_tokens
from harness.throughput.config import ThroughputConfig
from harness.throughput.report import Phase, RequestRow
from harness.throughput.spotcheck import SpotCheck, grader_passes
from harness.tokenizer import Tokenizer

EXCERPT = 200
# (level, phase, row): one request of the grader's loop ended (the progress bars)
OnRow = Callable[[int, Phase, RequestRow], None]


@dataclass(frozen=True)
class GraderLevel:
    """What the grader computes for one level (its result dict, typed)."""

    concurrency: int
    wall_s: float
    tok_s: float  # rounded to 2 decimals, as the grader saves it
    verified_prompt: int
    verified_completion: int
    reported_prompt: int
    reported_completion: int
    n_ok: int
    n_failed: int
    token_discrepancy: bool


def grader_body(cfg: ThroughputConfig, model: str, prompt: str, spot: bool) -> dict[str, Any]:
    temperature = cfg.spot_temperature if spot else cfg.temperature
    top_p = cfg.top_p if cfg.send_top_p else None
    body = sweep_body(model, prompt, cfg.max_tokens, temperature, top_p)
    if cfg.force_length and not spot:  # harness's knob, recorded as non-official
        body["ignore_eos"] = True
        body["min_tokens"] = cfg.max_tokens
    body.update(cfg.extra_body)
    return body


async def send_like_grader(
    session: aiohttp.ClientSession,
    cfg: ThroughputConfig,
    tok: Tokenizer,
    sem: asyncio.Semaphore,
    model: str,
    prompt: str,
    spot: SpotCheck | None,
    row: RequestRow,
    t0: float,
) -> RequestRow:
    """One request of the grader's loop; fills and returns ``row`` (never raises but Ctrl-C)."""
    messages: list[Message] = [{"role": "user", "content": prompt}]
    payload = grader_body(cfg, model, prompt, spot is not None)
    row.prompt_tokens = chat_prompt_tokens(tok, messages)  # before the slot, inside the wall

    def count(content: str) -> None:  # inside the slot and the response, like the grader
        row.output_tokens = tok.count(content)

    async with sem:
        t_start = time.perf_counter()
        row.start_ms = (t_start - t0) * 1000
        reply = await post_sweep(session, cfg.endpoint_url, payload, count)
        row.status = reply.status
        if reply.raw is not None and reply.status != 200:
            row.error_body = excerpt(reply.raw)
        row.server_prompt_tokens, row.server_output_tokens = (
            reply.prompt_tokens,
            reply.completion_tokens,
        )
        if reply.error is not None:
            row.ok = False
            row.output_tokens = None
            row.error = f"{type(reply.error).__name__}: {reply.error}"[:EXCERPT]
            row.error_kind = row_error_kind(reply.error, answered=reply.status is not None)
        elif reply.status != 200:
            row.error, row.error_kind = f"HTTP {reply.status}", "http_status"
        else:
            content = reply.content
            row.ok = True
            row.finish_reason = reply.finish_reason
            row.think_tag = cfg.think_open in content or cfg.think_close in content
            if spot is not None:
                row.spot_passed = grader_passes(content, spot.answer, cfg.spec.spot_tolerance)
                row.answer_excerpt = content[:EXCERPT]
        row.end_ms = (reply.t_end - t0) * 1000
        row.e2e_ms = (reply.t_end - t_start) * 1000
    return row


def row_error_kind(err: BaseException, *, answered: bool) -> str:
    """aiohttp's exceptions and timeouts by the one map (failure.error_kind); what the
    answer's parsing raised is a malformed answer or empty choices."""
    if isinstance(err, aiohttp.ClientError | TimeoutError):
        return str(error_kind(err, answered=answered))
    kind = ErrorKind.EMPTY_CHOICES if isinstance(err, IndexError) else ErrorKind.MALFORMED_JSON
    return str(kind)


def timed_plan(
    prompts: list[str], n: int, spots: list[SpotCheck], rng: random.Random
) -> list[tuple[str, SpotCheck | None]]:
    """The level's timed list: ``rng.sample`` positions replaced by the spot checks."""
    positions = set(rng.sample(range(n), min(len(spots), n))) if spots else set()
    it = iter(spots)
    out: list[tuple[str, SpotCheck | None]] = []
    k = 0
    for i in range(n):
        if i in positions:
            sc = next(it, None)
            if sc is not None:
                out.append((sc.question, sc))
                continue
        out.append((prompts[k % len(prompts)], None))
        k += 1
    return out


async def run_level_like_grader(
    session: aiohttp.ClientSession,
    cfg: ThroughputConfig,
    tok: Tokenizer,
    model: str,
    prompts: list[str],
    level: int,
    spots: list[SpotCheck],
    rng: random.Random,
    on_row: OnRow | None = None,
) -> tuple[list[RequestRow], GraderLevel]:
    """Warm-up then the timed list of one level; returns (rows, the grader's numbers).
    ``on_row`` hears of each timed request as it ends (a counter's update, no I/O)."""
    sem = asyncio.Semaphore(level)

    async def timed_one(i: int, text: str, spot: SpotCheck | None) -> RequestRow:
        row = await send_like_grader(
            session, cfg, tok, sem, model, text, spot, new_row("timed", i, spot), wall_start
        )
        if on_row is not None:
            on_row(level, "timed", row)
        return row

    def new_row(phase: Phase, i: int, spot: SpotCheck | None) -> RequestRow:
        row = RequestRow(
            level=level, phase=phase, index=i, kind="spot" if spot else "random", ok=False
        )
        if spot is not None:
            row.spot_question, row.spot_expected = spot.question, spot.answer
        return row

    t_warm = time.perf_counter()
    warm = await asyncio.gather(
        *(
            send_like_grader(
                session,
                cfg,
                tok,
                sem,
                model,
                prompts[i % len(prompts)],
                None,
                new_row("warmup", i, None),
                t_warm,
            )
            for i in range(cfg.warmup)
        )
    )
    plan = timed_plan(prompts, cfg.requests_per_level, spots, rng)
    wall_start = time.perf_counter()
    timed = await asyncio.gather(*(timed_one(i, text, spot) for i, (text, spot) in enumerate(plan)))
    wall = time.perf_counter() - wall_start
    return [*warm, *timed], grader_numbers(level, list(timed), wall, cfg)


def grader_numbers(
    level: int, timed: list[RequestRow], wall_s: float, cfg: ThroughputConfig
) -> GraderLevel:
    """The grader's per-level arithmetic over its timed rows (pure)."""
    ok = [r for r in timed if r.ok]
    vp = sum(r.prompt_tokens or 0 for r in ok)
    vc = sum(r.output_tokens or 0 for r in ok)
    rp = sum(r.server_prompt_tokens or 0 for r in ok)
    rc = sum(r.server_output_tokens or 0 for r in ok)
    rate = (vp + vc) / wall_s if ok and wall_s > 0 else 0.0
    digits = cfg.tok_s_decimals if cfg.tok_s_decimals is not None else 2

    def off(reported: int, verified: int) -> bool:
        return abs(reported - verified) > max(
            verified * cfg.usage_flag_ratio, cfg.usage_flag_tokens
        )

    return GraderLevel(
        concurrency=level,
        wall_s=wall_s,
        tok_s=round(rate, digits),
        verified_prompt=vp,
        verified_completion=vc,
        reported_prompt=rp,
        reported_completion=rc,
        n_ok=len(ok),
        n_failed=len(timed) - len(ok),
        token_discrepancy=bool(ok) and (off(rp, vp) or off(rc, vc)),
    )
