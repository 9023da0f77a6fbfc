"""The harness measuring itself: timing error and overhead against the simulator's truth.

The simulator runs in its own process and records, for every chunk, the
``perf_counter_ns`` right after its write returned. CLOCK_MONOTONIC is shared
across processes, so the client's receive timestamp minus that write time is
the client's own error (event-loop scheduling, parsing, GIL), plus the loopback
transit. Two error figures per request:

- ``ttft_error``: client TTFT − server TTFT, where server TTFT = first token
  write − request arrival (its handler started: what a perfect client would
  report, less the send transit, which both a peer and we pay alike);
- ``ttft_error_wire``: the same with server TTFT counted from when the request's
  first bytes reached the simulator process (``received_ns``). The difference is
  the simulator's own queueing when a wave of requests lands at once; a client
  sees that wait but does not cause it, so this is the client's own error;
- ``chunk_error``: client receive time − server write time, for every chunk.
"""

from __future__ import annotations

import asyncio
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from harness.client.http import HttpOptions, encode_body, make_session, parse_stream
from harness.client.loop import closed_loop
from harness.client.records import RequestRecord
from harness.errors import TargetError
from harness.latency.metrics import dist
from harness.latency.report import Calibration, Dist
from harness.simulate.log import LogEntry

if TYPE_CHECKING:  # the simulator's process is started only when a self-test runs
    from harness.simulate.process import SimProcess


@dataclass(frozen=True)
class SelfTestConfig:
    concurrency: int = 1
    requests: int = 100
    ttft_ms: float = 50.0
    itl_ms: float = 10.0
    output_tokens: int = 128
    tokens_per_chunk: int = 1


# the short self-test every latency report carries (quick_calibration)
QUICK = SelfTestConfig(concurrency=1, requests=10, ttft_ms=20.0, itl_ms=5.0, output_tokens=16)
# the quick self-test's simulator while a caller holds one (quick_simulator), else None
_HELD: ContextVar[SimProcess | None] = ContextVar("quick_self_test_simulator", default=None)


class SelfTestResult(BaseModel):
    config: dict[str, float | int]
    requests_ok: int
    requests_failed: int
    wall_s: float
    tokens: int
    tokens_per_s: float
    client_cpu_s: float
    cpu_s_per_1000_requests: float
    ttft_error_ms: Dist = Field(description="client TTFT − (first write − handler start)")
    ttft_error_wire_ms: Dist = Field(
        default_factory=Dist, description="client TTFT − (first write − first bytes received)"
    )
    sim_queue_ms: Dist = Field(
        default_factory=Dist, description="handler start − first bytes received, at the simulator"
    )
    chunk_error_ms: Dist
    itl_error_ms: Dist = Field(description="client ITL − server ITL, per token")
    itl_client_ms: Dist
    dispatch_lag_ms: Dist


def _body(i: int, cfg: SelfTestConfig) -> bytes:
    return encode_body(
        {
            "model": "sim",
            "prompt": f"self-test request {i}",
            "max_tokens": cfg.output_tokens,
            "temperature": 0.0,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    )


@dataclass
class Matched:
    """Per-request errors (ms) of client records paired with the simulator's log."""

    ttft: list[float] = field(default_factory=list)
    ttft_wire: list[float] = field(default_factory=list)
    sim_queue: list[float] = field(default_factory=list)
    chunk: list[float] = field(default_factory=list)
    itl: list[float] = field(default_factory=list)
    itl_client: list[float] = field(default_factory=list)


def match_errors(
    records: list[RequestRecord | None], log: list[LogEntry], cfg: SelfTestConfig
) -> Matched:
    """Pair client records with server log entries by prompt."""
    by_prompt: dict[str, LogEntry] = {}
    for e in log:
        if isinstance(e.body, dict) and isinstance(e.body.get("prompt"), str):
            by_prompt[e.body["prompt"]] = e
    out = Matched()
    for i, rec in enumerate(records):
        if rec is None or not rec.ok or rec.first_token_ns is None:
            continue
        entry = by_prompt.get(f"self-test request {i}")
        if entry is None:
            continue
        written = [t for t, n in zip(entry.chunk_written_ns, entry.chunk_tokens, strict=False) if n]
        if not written:
            continue
        client_ttft = rec.first_token_ns - rec.send_ns
        out.ttft.append((client_ttft - (written[0] - entry.arrival_ns)) / 1e6)
        if entry.received_ns is not None:
            out.ttft_wire.append((client_ttft - (written[0] - entry.received_ns)) / 1e6)
            out.sim_queue.append((entry.arrival_ns - entry.received_ns) / 1e6)
        got = [ev.t_ns for ev in rec.events]
        for c, w in zip(got, written, strict=False):
            out.chunk.append((c - w) / 1e6)
        for k in range(1, min(len(got), len(written))):
            cg = (got[k] - got[k - 1]) / 1e6
            sg = (written[k] - written[k - 1]) / 1e6
            per = cfg.tokens_per_chunk
            out.itl_client.extend([cg / per] * per)
            out.itl.extend([(cg - sg) / per] * per)
    return out


async def _measure(
    url: str, cfg: SelfTestConfig
) -> tuple[list[RequestRecord | None], float, float]:
    bodies = [_body(i, cfg) for i in range(cfg.requests)]
    opts = HttpOptions(timeout_s=120.0)
    async with make_session(opts) as session:
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        _, records = await closed_loop(
            session,
            url + "/v1/completions",
            "/v1/completions",
            bodies,
            cfg.concurrency,
            stream=True,
        )
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
    for rec in records:
        if rec is not None and rec.raw and rec.error is None:
            parse_stream(rec)
    return records, wall, cpu


def _simulator(cfg: SelfTestConfig) -> SimProcess:
    from harness.simulate import SimConfig
    from harness.simulate.process import SimProcess

    return SimProcess(
        SimConfig(
            ttft_ms=cfg.ttft_ms,
            itl_ms=cfg.itl_ms,
            output_tokens=cfg.output_tokens,
            tokens_per_chunk=cfg.tokens_per_chunk,
            log_bodies=True,
        )
    )


def run_self_test(cfg: SelfTestConfig) -> SelfTestResult:
    """Start the simulator in a subprocess, measure against it, compare with its log."""
    with _simulator(cfg) as sim:
        return _self_test_on(sim, cfg)


def _self_test_on(sim: SimProcess, cfg: SelfTestConfig) -> SelfTestResult:
    """Measure against the running simulator ``sim`` (started with ``cfg``'s timings) and
    compare with its log, cleared first (a held simulator served earlier self-tests)."""
    _raise_nofile(cfg.concurrency * 4 + 256)
    sim.clear_log()
    records, wall, cpu = asyncio.run(_measure(sim.url, cfg))
    log = sim.fetch_log()
    ok = [r for r in records if r is not None and r.ok]
    if not ok:
        first = next((r.error.one_line() for r in records if r and r.error), "no request finished")
        raise TargetError(f"self-test: every request to the simulator failed ({first})")
    m = match_errors(records, log, cfg)
    tokens = sum(len(r.events) * cfg.tokens_per_chunk for r in ok)
    lags = [r.dispatch_lag_ms for r in ok if r.dispatch_lag_ms is not None]
    return SelfTestResult(
        config={
            "concurrency": cfg.concurrency,
            "requests": cfg.requests,
            "ttft_ms": cfg.ttft_ms,
            "itl_ms": cfg.itl_ms,
            "output_tokens": cfg.output_tokens,
        },
        requests_ok=len(ok),
        requests_failed=cfg.requests - len(ok),
        wall_s=wall,
        tokens=tokens,
        tokens_per_s=tokens / wall if wall > 0 else 0.0,
        client_cpu_s=cpu,
        cpu_s_per_1000_requests=cpu / max(1, len(ok)) * 1000,
        ttft_error_ms=dist(m.ttft),
        ttft_error_wire_ms=dist(m.ttft_wire),
        sim_queue_ms=dist(m.sim_queue),
        chunk_error_ms=dist(m.chunk),
        itl_error_ms=dist(m.itl),
        itl_client_ms=dist(m.itl_client),
        dispatch_lag_ms=dist(lags),
    )


def _raise_nofile(need: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))


@contextmanager
def quick_simulator() -> Iterator[SimProcess]:
    """Hold the quick self-test's simulator for the block: every :func:`quick_calibration`
    inside it (in any thread the block's context reaches: a latency core's, its self-test's
    worker) measures against this one process instead of starting its own. A caller that
    writes many latency reports in one process (harness tune: every trial and confirmation
    leg) pays the simulator's start (Python start-up and the Qwen tokenizer: 2–3 s on two
    cores, against ~1 s of requests) once; each report still measures the client then.

    Enter it on the thread that outlives the block: the simulator dies with the thread that
    started it (``PR_SET_PDEATHSIG``), so also with a ``kill -9`` of harness."""
    sim = _simulator(QUICK).start()
    token = _HELD.set(sim)
    try:
        yield sim
    finally:
        _HELD.reset(token)
        sim.stop()


def quick_calibration() -> Calibration:
    """A short self-test attached to every latency report (~1 s of requests, and ~2–3 s
    to start its simulator unless :func:`quick_simulator` holds one)."""
    held = _HELD.get()
    res = run_self_test(QUICK) if held is None else _self_test_on(held, QUICK)
    return Calibration(
        requests=res.requests_ok,
        concurrency=1,
        ttft_error_ms=res.ttft_error_ms,
        e2e_error_ms=res.chunk_error_ms,
        note="client receive time minus the simulator's recorded write time (TTFT 20 ms, ITL 5 ms, 16 tokens)",
    )
