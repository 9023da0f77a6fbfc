"""`harness simulate`: run the OpenAI-compatible simulator in the foreground until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from harness.cli.common import port_number
from harness.errors import EXIT_INTERRUPTED, EXIT_OK
from harness.simulate.config import SimConfig
from harness.simulate.flags import SimOverrides
from harness.simulate.server import SimServer


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="OpenAI-compatible simulator with exact timing and fault knobs",
        description="Serve an OpenAI-compatible API with exact timing knobs and fault injection "
        "(see docs/simulate.md). Runs until Ctrl-C.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument(
        "--port",
        type=port_number,
        default=8000,
        help="port; 0 picks a free one (default: %(default)s)",
    )
    p.add_argument("--quiet", action="store_true", help="only print the listening line")
    SimOverrides.add_arguments(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace) -> SimConfig:
    return SimOverrides.from_args(args).config()


async def serve(cfg: SimConfig, host: str, port: int, quiet: bool) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with SimServer(cfg, host=host, port=port) as sim:
        # SimProcess waits for this exact line on stdout.
        print(f"harness simulate: listening on {sim.url}", flush=True)
        if not quiet:
            print(
                f"  models {', '.join(cfg.models)}; ttft {cfg.ttft_ms} ms, itl {cfg.itl_ms} ms; "
                "Ctrl-C to stop",
                file=sys.stderr,
                flush=True,
            )
        await stop.wait()


def run(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    runner: Any = asyncio.run
    try:  # uvloop when present: cheaper per write and ~1 ms timer wake-ups
        import uvloop

        runner = uvloop.run
    except ImportError:
        pass
    try:
        runner(serve(cfg, args.host, args.port, args.quiet))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return EXIT_OK
