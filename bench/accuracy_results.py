"""Client accuracy results: one client's errors at one concurrency, paired with the
simulator's log, pooled over runs, and the tables ``client_accuracy.py`` prints."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.latency.metrics import dist
from harness.simulate.log import LogEntry


@dataclass
class Result:
    client: str
    concurrency: int
    requests: int
    ok: int = 0
    matched: int = 0
    ttft_error_ms: list[float] = field(default_factory=list)
    # the same from when the request's first bytes reached the simulator (not its handler)
    ttft_error_wire_ms: list[float] = field(default_factory=list)
    # the client-side part alone: first token received − its write (absolute clocks needed)
    recv_lag_ms: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    load_avg: float = 0.0
    note: str = ""


def token_writes(entry: LogEntry) -> list[int]:
    return [t for t, n in zip(entry.chunk_written_ns, entry.chunk_tokens, strict=False) if n]


def by_prompt(log: list[LogEntry]) -> dict[str, LogEntry]:
    return {
        e.body["prompt"]: e
        for e in log
        if isinstance(e.body, dict) and isinstance(e.body.get("prompt"), str)
    }


def add_match(
    res: Result, entry: LogEntry | None, ttft_ms: float | None, first_ns: float | None = None
) -> None:
    """Record one request's TTFT error (and receive lag when the client's clock is ours)."""
    writes = token_writes(entry) if entry is not None else []
    if entry is None or ttft_ms is None or not writes:
        return
    res.ttft_error_ms.append(ttft_ms - (writes[0] - entry.arrival_ns) / 1e6)
    if entry.received_ns is not None:
        res.ttft_error_wire_ms.append(ttft_ms - (writes[0] - entry.received_ns) / 1e6)
    if first_ns is not None:
        res.recv_lag_ms.append((first_ns - writes[0]) / 1e6)
    res.matched += 1


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


def _stat(xs: list[float], p: float) -> float | None:
    d = dist(xs)
    return d.median if p == 0.5 else d.p99


def render(results: list[Result], sim_desc: str) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"TTFT error vs the simulator's truth ({sim_desc})",
        title_justify="left",
        caption="TTFT err = client TTFT − (first token write − request start), both at the "
        "simulator; the request starts when its handler starts (handler) or when its first "
        "bytes reached the simulator (wire: leaves out the simulator's own queueing when a "
        "wave lands at once); recv lag = first token received − its write, the client's side "
        "alone (guidellm stamps with time.time(): not comparable, so none)",
        caption_justify="left",
    )
    cols = ("client", "conc.", "ok / sent", "matched")
    pairs = ("handler", "wire", "recv lag")
    for col in (*cols, *(f"{x} {q}" for x in pairs for q in ("median", "p99")), "load"):
        t.add_column(col, justify="left" if col == "client" else "right")
    for r in results:
        t.add_row(
            r.client,
            str(r.concurrency),
            f"{r.ok} / {r.requests}",
            str(r.matched),
            *(
                _f(_stat(xs, p))
                for xs in (r.ttft_error_ms, r.ttft_error_wire_ms, r.recv_lag_ms)
                for p in (0.5, 0.99)
            ),
            f"{r.load_avg:.1f}",  # the highest of the runs pooled in this row
        )
    console = Console(stderr=True, width=130)
    console.print(t)
    for r in results:
        if r.note:
            console.print(f"[yellow]{r.client} c={r.concurrency}: {r.note}")


def paired(runs: dict[tuple[str, int], list[Result]]) -> list[dict[str, Any]]:
    """Per concurrency, harness vs the minimal client run by run (the same repeat index):
    how many runs the harness's median and p99 were at or below the minimal client's."""
    out = []
    for (client, c), hs in sorted(runs.items()):
        ms = runs.get(("minimal aiohttp", c))
        if client != "harness" or not ms:
            continue
        for truth in ("ttft_error_ms", "ttft_error_wire_ms"):
            for q in (0.5, 0.99):
                h = [_stat(getattr(r, truth), q) for r in hs]
                m = [_stat(getattr(r, truth), q) for r in ms]
                both = [
                    (a, b) for a, b in zip(h, m, strict=False) if a is not None and b is not None
                ]
                out.append(
                    {
                        "concurrency": c,
                        "truth": "handler" if truth == "ttft_error_ms" else "wire",
                        "statistic": "median" if q == 0.5 else "p99",
                        "harness": [round(a, 3) for a, _ in both],
                        "minimal": [round(b, 3) for _, b in both],
                        "harness_at_or_below": sum(1 for a, b in both if a <= b),
                        "runs": len(both),
                    }
                )
    return out


def render_paired(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    if not rows:
        return
    t = Table(title="Run by run: harness vs minimal aiohttp (TTFT error, ms)", title_justify="left")
    for col in ("conc.", "truth", "stat", "harness per run", "minimal per run", "harness ≤"):
        t.add_column(col, justify="right" if col in ("conc.", "harness ≤") else "left")
    for row in rows:
        t.add_row(
            str(row["concurrency"]),
            row["truth"],
            row["statistic"],
            " ".join(f"{v:.2f}" for v in row["harness"]),
            " ".join(f"{v:.2f}" for v in row["minimal"]),
            f"{row['harness_at_or_below']} of {row['runs']}",
        )
    Console(stderr=True, width=130).print(t)


def _kind(r: Result) -> str:
    return {"harness": "harness", "minimal aiohttp": "minimal", "vllm bench serve": "vllm"}.get(
        r.client, "guidellm"
    )


def merge(a: Result, b: Result) -> Result:
    return Result(
        a.client,
        a.concurrency,
        a.requests + b.requests,
        a.ok + b.ok,
        a.matched + b.matched,
        a.ttft_error_ms + b.ttft_error_ms,
        a.ttft_error_wire_ms + b.ttft_error_wire_ms,
        a.recv_lag_ms + b.recv_lag_ms,
        a.wall_s + b.wall_s,
        max(a.load_avg, b.load_avg),
        "; ".join(x for x in (a.note, b.note) if x),
    )
