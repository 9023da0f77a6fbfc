"""``harness latency --self-test``: the harness's own timing error, as a console table.

The measuring lives in ``harness.latency.selftest``; this is its argparse-facing
side (flags → :class:`SelfTestConfig` → run → table / JSON → exit code).
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from harness.cli.common import make_console, print_json
from harness.errors import EXIT_OK
from harness.latency.selftest import SelfTestConfig, SelfTestResult, run_self_test
from harness.stats import Dist
from harness.view import fmt


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


def _tail_line(d: Dist) -> str:
    """A p99 in a sentence, with what its samples can claim."""
    return fmt.tail(d.p99, d.tail("p99"), lambda v: f"{_ms3(v)} ms")


def render(console: Console, cfg: SelfTestConfig, res: SelfTestResult) -> None:
    t = Table(
        title=f"harness self-test (simulator TTFT {cfg.ttft_ms} ms, ITL {cfg.itl_ms} ms, "
        f"{cfg.output_tokens} tokens, concurrency {cfg.concurrency})",
        title_justify="left",
    )
    for col in ("error vs truth", "n", "median ms", "p90 ms", "p99 ms", "max ms"):
        t.add_column(col, justify="left" if col == "error vs truth" else "right")
    for name, d in (
        ("TTFT (from handler start)", res.ttft_error_ms),
        ("TTFT (from bytes received)", res.ttft_error_wire_ms),
        ("chunk arrival", res.chunk_error_ms),
        ("ITL", res.itl_error_ms),
    ):
        t.add_row(
            name,
            str(d.n),
            _ms3(d.median),
            fmt.tail(d.p90, d.tail("p90"), _ms3),
            fmt.tail(d.p99, d.tail("p99"), _ms3),
            _ms3(d.max),
        )
    console.print(t)
    console.print(
        f"{res.requests_ok} ok / {res.requests_failed} failed in {res.wall_s:.2f} s: "
        f"{res.tokens_per_s:,.0f} tokens/s; client CPU {res.cpu_s_per_1000_requests:.2f} s per 1000 requests; "
        f"dispatch lag p99 {_tail_line(res.dispatch_lag_ms)}"
    )
    q = res.sim_queue_ms
    if q.n and q.p99 is not None and q.median is not None:
        console.print(
            f"The simulator queued requests {q.median:.2f} ms (median), p99 {_tail_line(q)} "
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
