"""``harness latency --self-test``: the harness's own timing error, as a console table.

The measuring lives in ``harness.latency.selftest``; this is its argparse-facing
side (flags → :class:`SelfTestConfig` → run → table / JSON → exit code).
"""

from __future__ import annotations

import argparse

from rich.console import Console

from harness.cli.common import make_console, print_json
from harness.errors import EXIT_OK
from harness.latency.selftest import SelfTestConfig, SelfTestResult, run_self_test
from harness.view import fmt
from harness.view.console import print_sections
from harness.view.model import CellLike, Table, section, table
from harness.view.tails import TailCells, column_keys, phrase


def config_from_args(args: argparse.Namespace) -> SelfTestConfig:
    return SelfTestConfig(
        concurrency=args.concurrency,
        requests=args.runs or 100,
        ttft_ms=args.st_ttft_ms,
        itl_ms=args.st_itl_ms,
        output_tokens=args.st_output_tokens,
    )


def _ms3(v: float | None) -> str:
    return fmt.num(v, ".3f")


def _ms3u(v: float | None) -> str:
    return f"{_ms3(v)} ms"


def error_table(cfg: SelfTestConfig, res: SelfTestResult) -> Table:
    """The errors against the simulator's truth as a view table: the tail columns show what
    the rows' samples support (harness/view/tails.py; 10 requests show no p99)."""
    rows = [
        ("TTFT (from handler start)", res.ttft_error_ms),
        ("TTFT (from bytes received)", res.ttft_error_wire_ms),
        ("chunk arrival", res.chunk_error_ms),
        ("ITL", res.itl_error_ms),
    ]
    # the max has its own column: a tail column none of the rows supports is left out
    keys = [k for k in column_keys([d for _, d in rows], ("p90", "p99")) if k != "max"]
    tails = TailCells()
    cells: list[list[CellLike]] = [
        [name, str(d.n), _ms3(d.median), *(tails.cell(d, k, _ms3) for k in keys), _ms3(d.max)]
        for name, d in rows
    ]
    cols = ["error vs truth", "n", "median ms", *(f"{k} ms" for k in keys), "max ms"]
    title = (
        f"harness self-test (simulator TTFT {cfg.ttft_ms} ms, ITL {cfg.itl_ms} ms, "
        f"{cfg.output_tokens} tokens, concurrency {cfg.concurrency})"
    )
    return table("self-test", title, cols, cells, left=["error vs truth"], notes=tails.notes())


def render(console: Console, cfg: SelfTestConfig, res: SelfTestResult) -> None:
    print_sections(console, [section("self-test", "Self-test", error_table(cfg, res))])
    console.print(
        f"{res.requests_ok} ok / {res.requests_failed} failed in {res.wall_s:.2f} s: "
        f"{res.tokens_per_s:,.0f} tokens/s; client CPU {res.cpu_s_per_1000_requests:.2f} s per 1000 requests; "
        f"dispatch lag {phrase(res.dispatch_lag_ms, 'p99', _ms3u)}"
    )
    q = res.sim_queue_ms
    if q.n and q.p99 is not None and q.median is not None:
        console.print(
            f"The simulator queued requests {q.median:.2f} ms (median), {phrase(q, 'p99', _ms3u)} "
            "between receiving them and starting their handlers; TTFT from bytes received "
            "leaves that wait out: it is the harness's own error."
        )


def run_self_test_cli(args: argparse.Namespace) -> int:
    console = make_console(args)
    cfg = config_from_args(args)
    with console.status(f"self-test: {cfg.requests} requests at concurrency {cfg.concurrency} …"):
        res = run_self_test(cfg)
    if args.json:
        print_json(res.model_dump(mode="json"))
    render(console, cfg, res)
    return EXIT_OK
