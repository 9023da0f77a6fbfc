"""Running the latency buckets: official (the grader's loop) and strict (streamed, unique prompts).

Official mode sends with the grader's own client (stdlib urllib + ``json.dumps``,
harness/client/urllib_client.py) from a worker thread, one request at a time,
and sends nothing the grader does not send: no ``/v1/models`` look-up, so the
served model names are "not taken" in a pure official run. Strict mode uses
harness's aiohttp client (streamed, unique exact-length prompts) and asks
``/v1/models`` for the model name: a harness extra, labelled as such.

The runner only measures and appends rows to a :class:`LatencyState`; the
report is built from that state, so a Ctrl-C still leaves everything measured.
A ``hook`` is awaited before and after every bucket (Prometheus scraping plugs in
there; it is the caller's choice to pass one in official mode).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import aiohttp

from harness.client.gc_pause import gc_paused
from harness.client.http import HttpOptions, encode_body, make_session, parse_stream
from harness.client.loop import closed_loop
from harness.client.readiness import server_models
from harness.client.records import RequestRecord
from harness.client.token_probe import probe_usage
from harness.client.urllib_client import post_like_grader
from harness.graders.qwen import latency_body
from harness.latency.config import LatencyConfig
from harness.latency.metrics import to_row
from harness.latency.report import RequestRow
from harness.latency.state import LatencyState
from harness.latency.until_ci import AnyLook, Stopper
from harness.latency.usage_check import probe_targets
from harness.profiles import Bucket
from harness.prompts import exact_prompt
from harness.tokenizer import Tokenizer
from harness.usage import UsageCheck

Phase = Literal["warmup", "timed"]
OnRow = Callable[[RequestRow, int], None]  # (row, total requests in this bucket+phase)
OnLook = Callable[[RequestRow, AnyLook, float], None]  # --until-ci: (row, the interval, PCT)
Edge = Literal["before", "after"]
BucketHook = Callable[[str, Bucket, Edge], Awaitable[None]]  # (mode, bucket, edge)
NOT_TAKEN = "not taken: official mode sends only the grader's requests"


def _stopper(cfg: LatencyConfig) -> Stopper | None:
    return Stopper(cfg.until_ci, cfg.runs, cfg.until_ci_at) if cfg.until_ci is not None else None


def official_body(cfg: LatencyConfig, bucket: Bucket) -> dict[str, Any]:
    """The grader's body, exactly: prompt, max_tokens, temperature."""
    return {
        **latency_body(cfg.filler(bucket.prompt_tokens), bucket.max_tokens, cfg.temperature),
        **cfg.extra_body,
    }


def strict_body(
    cfg: LatencyConfig, prompt: str, bucket: Bucket, model: str | None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "prompt": prompt,
        "max_tokens": bucket.max_tokens,
        "temperature": cfg.temperature,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if model:
        body["model"] = model
    if cfg.force_length:
        body["ignore_eos"] = True
        body["min_tokens"] = bucket.max_tokens
    body.update(cfg.extra_body)
    return body


def _rule_sees_streams(cfg: LatencyConfig) -> bool:
    """A strict request's stream is parsed as it ends, for the stop rule to see its TTFT and
    TPOT, only when nothing else is in flight (one at a time): parsing while another stream
    arrives would delay that stream's timestamps. Otherwise the rule sees its end only."""
    return cfg.stop_rule is not None and cfg.concurrency == 1


def _ask_stop_rule(cfg: LatencyConfig, row: RequestRow, state: LatencyState) -> bool:
    """The config's stop rule after a timed request (harness/latency/stop_rule.py): True
    when it ends the run (its reason kept in ``state.stopped_by``)."""
    if cfg.stop_rule is None or state.stopped_by is not None:
        return state.stopped_by is not None
    why = cfg.stop_rule.after(row)
    if why:
        state.stopped_by = why
    return bool(why)


async def run_official_bucket(
    cfg: LatencyConfig,
    bucket: Bucket,
    tok: Tokenizer,
    state: LatencyState,
    on_row: OnRow | None = None,
    on_look: OnLook | None = None,
) -> None:
    """5 warm-up + 50 timed requests, strictly one at a time, the same payload every time,
    each sent and timed exactly as the grader's ``_invoke`` does (in a worker thread).
    Under ``--until-ci`` the timed requests stop once the interval is narrow: the
    grader's requests, fewer of them."""
    url = cfg.url.rstrip("/") + cfg.endpoint
    payload = official_body(cfg, bucket)
    prompt_tokens = tok.count(cfg.filler(bucket.prompt_tokens))
    stopper = _stopper(cfg)
    phases: tuple[tuple[Phase, int], ...] = (("warmup", cfg.warmup), ("timed", cfg.runs))
    for phase, n in phases:
        for i in range(n):
            with gc_paused():  # collections happen between requests, never inside one
                rec = await asyncio.to_thread(
                    post_like_grader, url, payload, timeout_s=cfg.timeout_s, endpoint=cfg.endpoint
                )
            row, _ = to_row(
                rec,
                bucket=bucket.name,
                mode="official",
                phase=phase,
                index=i,
                prompt_tokens=prompt_tokens,
                tok=tok,
            )
            state.rows.append(row)
            if on_row:
                on_row(row, n)
            if phase == "timed" and stopper is not None:
                lk = stopper.add(row.ok, row.e2e_ms)
                if on_look:
                    on_look(row, lk, stopper.pct)
                if stopper.narrow:
                    break
            if phase == "timed" and _ask_stop_rule(cfg, row, state):
                return  # the bucket is left unfinished
    state.finished_buckets.append(("official", bucket.name))


async def run_strict_bucket(
    session: aiohttp.ClientSession,
    cfg: LatencyConfig,
    bucket: Bucket,
    tok: Tokenizer,
    state: LatencyState,
    model: str | None,
    on_row: OnRow | None = None,
    on_look: OnLook | None = None,
) -> None:
    """Streamed requests with a unique exact-length prompt each, ``concurrency`` in flight.

    Streams are parsed only after the phase ends, so parsing never delays a timestamp;
    under ``--until-ci`` (one request at a time) each timed stream is parsed as it ends,
    while nothing is in flight, and the phase stops once the interval is narrow.
    """
    url = cfg.url.rstrip("/") + cfg.strict_endpoint
    stopper = _stopper(cfg)
    itls = state.itls.setdefault(("strict", bucket.name), [])
    phases: tuple[tuple[Phase, int], ...] = (("warmup", cfg.warmup), ("timed", cfg.runs))

    def report_row(rec: RequestRecord, phase: Phase, i: int) -> tuple[RequestRow, list[float]]:
        """The report's row of a parsed strict request, and its inter-token latencies."""
        return to_row(
            rec, bucket=bucket.name, mode="strict", phase=phase, index=i,
            prompt_tokens=bucket.prompt_tokens, tok=tok,
        )  # fmt: skip

    for phase, n in phases:
        offset = 0 if phase == "warmup" else cfg.warmup
        bodies = [
            encode_body(
                strict_body(
                    cfg,
                    exact_prompt(tok, bucket.prompt_tokens, seed=cfg.seed, index=offset + i),
                    bucket,
                    model,
                )
            )
            for i in range(n)
        ]

        looking = stopper if phase == "timed" else None

        def tick(
            i: int,
            rec: RequestRecord,
            phase: Phase = phase,
            n: int = n,
            looking: Stopper | None = looking,
        ) -> None:
            full = phase == "timed" and _rule_sees_streams(cfg)
            if (looking is not None or full) and rec.raw and rec.error is None:
                parse_stream(rec)  # nothing is in flight: one request at a time
            if full:  # the stop rule's row is the report's (TTFT, TPOT for a tail SLO)
                row, _ = report_row(rec, phase, i)
            else:
                row = RequestRow(
                    bucket=bucket.name,
                    mode="strict",
                    phase=phase,
                    index=i,
                    ok=rec.ok,
                    e2e_ms=rec.ms(rec.end_ns)
                    if looking is None
                    else rec.e2e_ms
                    if rec.ok
                    else None,
                    error_kind=str(rec.error.kind) if rec.error else None,
                )
            if on_row:
                on_row(row, n)
            if looking is not None:
                lk = looking.add(row.ok, row.e2e_ms)
                if on_look:
                    on_look(row, lk, looking.pct)
            if phase == "timed":
                _ask_stop_rule(cfg, row, state)

        def stop_now(looking: Stopper | None = looking) -> bool:
            narrow = looking is not None and looking.stop_now()
            return narrow or state.stopped_by is not None

        _, records = await closed_loop(
            session,
            url,
            cfg.strict_endpoint,
            bodies,
            cfg.concurrency,
            stream=True,
            on_done=tick,
            stop=stop_now if looking is not None or cfg.stop_rule is not None else None,
        )
        for i, rec in enumerate(records):
            if rec is None:
                continue
            if rec.raw and rec.error is None:
                parse_stream(rec)
            row, row_itls = report_row(rec, phase, i)
            state.rows.append(row)
            if phase == "timed":
                itls.extend(row_itls)
        if state.stopped_by is not None:
            return  # the bucket is left unfinished
    state.finished_buckets.append(("strict", bucket.name))


async def discover_model(cfg: LatencyConfig, state: LatencyState) -> str | None:
    async with aiohttp.ClientSession() as s:
        state.server_models = await server_models(s, cfg.url)
    if cfg.model:
        return cfg.model
    return state.server_models[0] if state.server_models else None


async def run_latency(
    cfg: LatencyConfig,
    tok: Tokenizer,
    state: LatencyState,
    *,
    on_bucket: Callable[[str, Bucket], None] | None = None,
    on_row: OnRow | None = None,
    hook: BucketHook | None = None,
    on_look: OnLook | None = None,
) -> str | None:
    """Every requested bucket, official first then strict (when the mode asks for both).

    ``hook(mode, bucket, "before"|"after")`` is awaited around each bucket, outside
    every timed window. Returns the model name strict requests carried (None: none sent)."""
    modes: list[str] = ["official", "strict"] if cfg.mode == "both" else [cfg.mode]
    model: str | None = None
    if "strict" in modes:
        model = await discover_model(cfg, state)
    else:
        state.server_models_note = NOT_TAKEN
    for mode in modes:
        # buckets an interrupted run measured to their end (--resume) are not measured again
        todo = [b for b in cfg.buckets if (mode, b.name) not in state.finished_buckets]
        if mode == "official":
            for bucket in todo:
                if on_bucket:
                    on_bucket(mode, bucket)
                if hook:
                    await hook(mode, bucket, "before")
                await run_official_bucket(cfg, bucket, tok, state, on_row, on_look)
                if hook:
                    await hook(mode, bucket, "after")
                if state.stopped_by is not None:
                    return model or cfg.model
            continue
        opts = HttpOptions(timeout_s=cfg.timeout_s, connect_timeout_s=cfg.connect_timeout_s)
        async with make_session(opts) as session:
            for bucket in todo:
                if on_bucket:
                    on_bucket(mode, bucket)
                if hook:
                    await hook(mode, bucket, "before")
                await run_strict_bucket(session, cfg, bucket, tok, state, model, on_row, on_look)
                if hook:
                    await hook(mode, bucket, "after")
                if state.stopped_by is not None:
                    return model or cfg.model
    return model or cfg.model


async def run_probes(
    cfg: LatencyConfig, tok: Tokenizer, state: LatencyState, model: str | None
) -> list[UsageCheck]:
    """The usage probes (harness/latency/usage_check.py: ``probe_targets``), one at a time,
    after every bucket, into ``state.usage_checks``."""
    url = cfg.url.rstrip("/") + cfg.strict_endpoint
    opts = HttpOptions(timeout_s=cfg.timeout_s, connect_timeout_s=cfg.connect_timeout_s)
    async with make_session(opts) as session:
        for t in probe_targets(cfg, state):
            if t.row.mode == "official":
                body = {**official_body(cfg, t.bucket), **({"model": model} if model else {})}
                label = "the official filler"
            else:
                index = t.row.index + cfg.warmup  # warm-up prompts come first
                prompt = exact_prompt(tok, t.bucket.prompt_tokens, seed=cfg.seed, index=index)
                body = strict_body(cfg, prompt, t.bucket, model)
                label = f"strict prompt #{index} of seed {cfg.seed}"
            state.usage_checks.append(
                await probe_usage(
                    session,
                    url,
                    cfg.strict_endpoint,
                    body,
                    tok,
                    mode=t.row.mode,
                    name=t.bucket.name,
                    prompt=label,
                )
            )
    return state.usage_checks
