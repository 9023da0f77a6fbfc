"""The minimal aiohttp client the issue names as the baseline of client accuracy.

One ``ClientSession``, a closed loop of ``concurrency`` workers, ``iter_any``, a
``perf_counter_ns`` stamp at each read, events parsed only afterwards. It sends
the self-test's body (usage chunk included), so the simulator does the same work
for it as for the harness. ``client_accuracy.py`` and ``ingest.py`` use it.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import aiohttp


@dataclass
class MinimalRecord:
    prompt: str
    send_ns: int = 0
    reads: list[tuple[int, bytes]] = field(default_factory=list)
    error: str = ""

    def events(self) -> list[tuple[int, int]]:
        """(arrival time of the read that completed it, tokens) of every event with text."""
        out: list[tuple[int, int]] = []
        buf = b""
        for t_ns, chunk in self.reads:
            buf += chunk
            *done, buf = buf.split(b"\n\n")
            for ev in done:
                if not ev.startswith(b"data: {"):
                    continue
                choices = json.loads(ev[6:]).get("choices") or []
                if choices and choices[0].get("text"):
                    out.append((t_ns, 1))
        return out


async def run_minimal(
    url: str, prompts: list[str], concurrency: int, max_tokens: int, warmup: bool = False
) -> tuple[list[MinimalRecord], float, float]:
    """Closed loop, ``concurrency`` workers, one session; returns records, wall s, CPU s.
    ``warmup``: one wave of one-token requests first, so the timed ones find open connections."""
    records = [MinimalRecord(p) for p in prompts]
    left = list(reversed(range(len(prompts))))
    clock = time.perf_counter_ns

    async def send(session: aiohttp.ClientSession, rec: MinimalRecord, tokens: int) -> None:
        # the self-test's body (usage chunk included): the simulator does the same work
        # for both clients, so only the clients differ
        body = json.dumps(
            {
                "model": "sim",
                "prompt": rec.prompt,
                "max_tokens": tokens,
                "temperature": 0.0,
                "stream": True,
                "stream_options": {"include_usage": True},
            }
        ).encode()
        rec.send_ns = clock()
        try:
            async with session.post(url + "/v1/completions", data=body) as resp:
                async for chunk in resp.content.iter_any():
                    rec.reads.append((clock(), chunk))
        except (aiohttp.ClientError, TimeoutError) as err:
            rec.error = f"{type(err).__name__}: {err}"

    async def worker(session: aiohttp.ClientSession) -> None:
        while left:
            await send(session, records[left.pop()], max_tokens)

    connector = aiohttp.TCPConnector(limit=0)
    headers = {"Content-Type": "application/json"}
    timeout = aiohttp.ClientTimeout(total=120)
    width = min(concurrency, len(prompts))
    async with aiohttp.ClientSession(connector=connector, headers=headers, timeout=timeout) as s:
        if warmup:
            await asyncio.gather(*[send(s, MinimalRecord("warm-up"), 1) for _ in range(width)])
        cpu0, t0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*[worker(s) for _ in range(width)])
        return records, time.perf_counter() - t0, time.process_time() - cpu0
