"""Ingest: how many streamed tokens/s the harness client takes in, at what CPU cost and ITL error.

Concurrency 64 against one simulator process (ITL 1 ms, 512 tokens, TTFT 0),
closed loop. For the harness client (``harness latency --self-test``'s code) and
the minimal aiohttp client of ``client_accuracy.py``, one after the other:

- tokens/s: tokens received / wall time of the run;
- ITL: the client's per-token ITL against the truth (the gaps between the
  simulator's recorded write times of the same two events), median error;
- client CPU seconds per 1000 requests: the receive loop alone, and with the
  parsing done after it (the harness parses after the run, so parsing never
  delays a timestamp);
- the simulator's side: its CPU (from /proc) and how late its writes were against
  their deadlines. With 1 token per event one Python process must write 64k
  events/s; when it cannot, the tokens/s figure is the simulator's ceiling, not the
  client's. Rerunning with several tokens per event (``--tokens-per-chunk 1,8``)
  shows the client's side with the server out of the way.

Usage: .venv/bin/python bench/ingest.py [--requests 640] [--tokens-per-chunk 1,8] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy_results import by_prompt, token_writes
from minimal_client import run_minimal

from harness.cli.common import int_list, positive_int
from harness.latency.selftest import SelfTestConfig, _measure
from harness.simulate.bench import cpu_seconds
from harness.simulate.config import SimConfig
from harness.simulate.log import LogEntry
from harness.simulate.process import SimProcess
from harness.stats.summary import Dist, dist


@dataclass
class IngestResult:
    client: str
    tokens_per_chunk: int
    requests: int
    ok: int
    tokens: int
    wall_s: float
    tokens_per_s: float
    loop_cpu_s_per_1000: float
    total_cpu_s_per_1000: float
    itl_client_mean_ms: float | None
    itl_truth_mean_ms: float | None
    itl_error_median_ms: float | None  # per request: client mean ITL − truth mean ITL
    itl_error_p99_ms: float | None
    itl_token_error_median_ms: float | None  # per token gap
    itl_token_error_p99_ms: float | None
    sim_cpu_s: float
    sim_late_median_ms: float | None
    sim_late_p99_ms: float | None
    load_avg: float


def _lateness(log: list[LogEntry]) -> Dist:
    return dist(
        [
            (w - d) / 1e6
            for e in log
            for w, d in zip(e.chunk_written_ns, e.chunk_deadline_ns, strict=True)
        ]
    )


@dataclass
class ItlStats:
    client_mean_ms: float | None  # all per-token ITLs the client saw, averaged
    truth_mean_ms: float | None  # the same from the simulator's write times
    request_error: Dist  # per request: client mean ITL − truth mean ITL (TPOT-like)
    token_error: Dist  # per token: client gap − written gap (0 when both coalesce)


def itl_stats(events: dict[str, list[int]], log: list[LogEntry], per: int) -> ItlStats:
    """Event k of a client's stream paired with write k of the same request (by prompt).

    Per-token gaps are degenerate when the simulator falls behind (overdue events
    leave in one write and arrive in one read: gap 0 on both sides), so the
    per-request mean ITL is the figure compared with the truth.
    """
    entries = by_prompt(log)
    req_err: list[float] = []
    tok_err: list[float] = []
    c_sum = t_sum = 0.0
    count = 0
    for prompt, got in events.items():
        entry = entries.get(prompt)
        if entry is None:
            continue
        written = token_writes(entry)
        m = min(len(got), len(written))
        if m < 2:
            continue
        c_span, t_span = (got[m - 1] - got[0]) / 1e6, (written[m - 1] - written[0]) / 1e6
        n_tok = (m - 1) * per
        req_err.append((c_span - t_span) / n_tok)
        c_sum, t_sum, count = c_sum + c_span, t_sum + t_span, count + n_tok
        for k in range(1, m):
            gap_err = ((got[k] - got[k - 1]) - (written[k] - written[k - 1])) / 1e6 / per
            tok_err.extend([gap_err] * per)
    return ItlStats(
        client_mean_ms=c_sum / count if count else None,
        truth_mean_ms=t_sum / count if count else None,
        request_error=dist(req_err),
        token_error=dist(tok_err),
    )


def run_one(sim: SimProcess, client: str, per: int, n: int, tokens: int) -> IngestResult:
    sim.clear_log()
    load = os.getloadavg()[0]
    assert sim.pid is not None
    sim_cpu0 = cpu_seconds(sim.pid)
    cpu0 = time.process_time()
    if client == "harness":
        cfg = SelfTestConfig(
            concurrency=64,
            requests=n,
            ttft_ms=0.0,
            itl_ms=1.0,
            output_tokens=tokens,
            tokens_per_chunk=per,
        )
        records, wall, loop_cpu = asyncio.run(_measure(sim.url, cfg))  # parses after the loop
        total_cpu = time.process_time() - cpu0
        sim_cpu = cpu_seconds(sim.pid) - sim_cpu0
        events = {
            f"self-test request {i}": [ev.t_ns for ev in r.events]  # selftest's prompts
            for i, r in enumerate(records)
            if r is not None and r.ok
        }
    else:
        prompts = [f"ingest request {i}" for i in range(n)]
        recs, wall, loop_cpu = asyncio.run(run_minimal(sim.url, prompts, 64, tokens))
        events = {r.prompt: [t for t, _ in r.events()] for r in recs if not r.error}
        total_cpu = time.process_time() - cpu0
        sim_cpu = cpu_seconds(sim.pid) - sim_cpu0
    log = sim.fetch_log()
    ok = sum(1 for evs in events.values() if evs)
    got = sum(len(evs) * per for evs in events.values())
    itl = itl_stats(events, log, per)
    late = _lateness(log)
    return IngestResult(
        client=client,
        tokens_per_chunk=per,
        requests=n,
        ok=ok,
        tokens=got,
        wall_s=wall,
        tokens_per_s=got / wall if wall > 0 else 0.0,
        loop_cpu_s_per_1000=loop_cpu / max(ok, 1) * 1000,
        total_cpu_s_per_1000=total_cpu / max(ok, 1) * 1000,
        itl_client_mean_ms=itl.client_mean_ms,
        itl_truth_mean_ms=itl.truth_mean_ms,
        itl_error_median_ms=itl.request_error.median,
        itl_error_p99_ms=itl.request_error.p99,
        itl_token_error_median_ms=itl.token_error.median,
        itl_token_error_p99_ms=itl.token_error.p99,
        sim_cpu_s=sim_cpu,
        sim_late_median_ms=late.median,
        sim_late_p99_ms=late.p99,
        load_avg=load,
    )


def _f(v: float | None, fmt: str = ".3f") -> str:
    return "—" if v is None else format(v, fmt)


def render(results: list[IngestResult], tokens: int) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(
        title=f"ingest: concurrency 64, ITL 1 ms, {tokens} tokens, one simulator process",
        title_justify="left",
        caption="ITL client/truth: mean per-token ITL (ms); ITL err: per request, client mean ITL "
        "− truth mean ITL (ms); sim late: write time − deadline (ms)",
        caption_justify="left",
    )
    cols = (
        "client",
        "tok/event",
        "ok",
        "tokens/s",
        "CPU-s/1000 loop",
        "CPU-s/1000 +parse",
        "ITL client",
        "ITL truth",
        "ITL err med",
        "ITL err p99",
        "sim CPU %",
        "sim late med/p99",
        "load",
    )
    for col in cols:
        t.add_column(col, justify="left" if col == "client" else "right")
    for r in results:
        t.add_row(
            r.client,
            str(r.tokens_per_chunk),
            f"{r.ok}/{r.requests}",
            f"{r.tokens_per_s:,.0f}",
            f"{r.loop_cpu_s_per_1000:.2f}",
            f"{r.total_cpu_s_per_1000:.2f}",
            _f(r.itl_client_mean_ms, ".4f"),
            _f(r.itl_truth_mean_ms, ".4f"),
            _f(r.itl_error_median_ms, "+.4f"),
            _f(r.itl_error_p99_ms, "+.4f"),
            f"{r.sim_cpu_s / r.wall_s * 100:.0f}" if r.wall_s else "—",
            f"{_f(r.sim_late_median_ms, '.2f')}/{_f(r.sim_late_p99_ms, '.1f')}",
            f"{r.load_avg:.1f}",
        )
    Console(stderr=True, width=200).print(t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument(
        "--requests", type=positive_int, default=640, help="requests per client and setting"
    )
    ap.add_argument("--tokens", type=positive_int, default=512, help="output tokens per request")
    ap.add_argument(
        "--tokens-per-chunk", type=int_list, default=[1, 8], help="comma list of tokens per event"
    )
    ap.add_argument("--clients", default="harness,minimal", help="comma list")
    ap.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    a = ap.parse_args()
    clients = [c.strip() for c in a.clients.split(",") if c.strip()]
    if not clients or set(clients) - {"harness", "minimal"}:
        print(f"ingest: bad --clients {a.clients!r}; valid: harness, minimal")
        return 2
    results: list[IngestResult] = []
    for per in a.tokens_per_chunk:
        cfg = SimConfig(itl_ms=1.0, output_tokens=a.tokens, tokens_per_chunk=per, log_bodies=True)
        with SimProcess(cfg) as sim:
            for client in clients:
                print(f"… {client}, {per} token(s)/event: {a.requests} requests", file=sys.stderr)
                results.append(run_one(sim, client, per, a.requests, a.tokens))
    render(results, a.tokens)
    if a.json:
        sys.stdout.write(json.dumps([asdict(r) for r in results], indent=2) + "\n")
    return 0 if all(r.ok == r.requests for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
