"""What one simulator process sustains: ``python -m harness.simulate.bench``.

Starts a :class:`SimProcess`, drives it with a minimal aiohttp client (closed
loop, C streams, R requests of T tokens), and prints the client-side tokens/s,
the simulator's CPU (from /proc) per 1000 requests and per token, and how late
its writes were against their deadlines (from its own log). On a shared machine
wall-clock figures depend on the load; the CPU figures much less so.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

import aiohttp

from harness.simulate.config import SimConfig
from harness.simulate.process import SimProcess
from harness.stats.summary import dist
from harness.view import fmt


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def drive(url: str, concurrency: int, requests: int, tokens: int) -> tuple[int, float]:
    body = {"prompt": "bench", "max_tokens": tokens, "stream": True, "ignore_eos": True}
    left = list(range(requests))
    events = 0

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal events
        while left:
            left.pop()
            async with session.post(url + "/v1/completions", json=body) as r:
                async for line in r.content:
                    events += line.startswith(b"data: {")

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as s:
        t0 = time.perf_counter()
        await asyncio.gather(*[worker(s) for _ in range(concurrency)])
        return events, time.perf_counter() - t0


def _q(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[round(p * (len(values) - 1))] if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--requests", type=int, default=192)
    ap.add_argument("--tokens", type=int, default=512)
    ap.add_argument("--itl-ms", type=float, default=1.0)
    ap.add_argument("--tokens-per-chunk", type=int, default=1)
    a = ap.parse_args()
    cfg = SimConfig(itl_ms=a.itl_ms, tokens_per_chunk=a.tokens_per_chunk, log_bodies=False)
    with SimProcess(cfg) as sp:
        assert sp.pid is not None
        cpu0, client0 = cpu_seconds(sp.pid), time.process_time()
        events, wall = asyncio.run(drive(sp.url, a.concurrency, a.requests, a.tokens))
        server_cpu, client_cpu = cpu_seconds(sp.pid) - cpu0, time.process_time() - client0
        log = sp.fetch_log()
    tokens = events * a.tokens_per_chunk
    late = [
        (w - d) / 1e6
        for e in log
        for w, d in zip(e.chunk_written_ns, e.chunk_deadline_ns, strict=True)
    ]
    gaps = [
        (b - x) / 1e6 / a.tokens_per_chunk
        for e in log
        for x, b in zip(e.chunk_written_ns, e.chunk_written_ns[1:], strict=False)
    ]
    print(
        f"concurrency {a.concurrency}, {a.requests} requests x {a.tokens} tokens, ITL {a.itl_ms} ms, "
        f"{a.tokens_per_chunk} token(s)/chunk; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"  client-side: {tokens} tokens in {wall:.2f} s = {tokens / wall:,.0f} tokens/s")
    print(
        f"  simulator CPU: {server_cpu:.2f} s = {server_cpu / a.requests * 1000:.2f} CPU-s per 1000 "
        f"requests, {server_cpu / max(tokens, 1) * 1e6:.1f} µs per token (client {client_cpu:.2f} s)"
    )
    d = dist(late)

    def f3(v: float | None) -> str:
        return fmt.num(v, ".3f")

    print(
        f"  write lateness vs deadline (ms): median {_q(late, 0.5):.3f}, "
        f"p90 {fmt.tail(d.p90, d.tail('p90'), f3)}, p99 {fmt.tail(d.p99, d.tail('p99'), f3)}; "
        f"written ITL mean {statistics.fmean(gaps):.3f} ms"
    )


if __name__ == "__main__":
    main()
