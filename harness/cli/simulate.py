"""`harness simulate`: run the OpenAI-compatible simulator in the foreground until Ctrl-C."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from harness.cli.common import port_number
from harness.errors import EXIT_INTERRUPTED, EXIT_OK
from harness.simulate.config import ROUTES, SimConfig, make_config
from harness.simulate.server import SimServer

_HELP: dict[str, str] = {
    "ttft_ms": "time to first token, from request arrival (ms)",
    "itl_ms": "inter-token latency (ms); token i is due at TTFT + i*ITL",
    "prefill_ms_per_token": "added to TTFT per (uncached) prompt token (ms)",
    "prefix_cache": "emulate a prefix cache: prompt blocks seen before cost no prefill",
    "busy_wait_us": "busy-wait this long (µs) before each deadline when one request is in flight",
    "jitter_pct": "per-request timing jitter: TTFT, prefill and ITL scaled by exp(N(0, PCT/100)), "
    "one seeded draw per request (default 0: exact)",
    "output_tokens": "the model's natural length: stop ('stop') after N tokens unless"
    " ignore_eos; none: only max_tokens stops it",
    "stop_early_at": "stop after N tokens whatever the client asked (an early-stopping"
    " server); none: never",
    "default_max_tokens": "max_tokens when the request has none",
    "tokens_per_chunk": "tokens per SSE event",
    "max_model_len": "context length; longer prompt+max_tokens get vLLM's 400",
    "think_tokens": "reasoning words inside <think> when thinking is on",
    "count_eos": "count the EOS token that ends a 'stop' answer in usage and token ids, as vLLM "
    "does (default: off)",
    "special_tokens": "the last N generated tokens are special tokens absent from the text "
    "(vLLM's detokeniser skips them) but timed and counted in usage (default: 0)",
    "accuracy": "answer the local benchmark data's multiple-choice questions (MMLU-Pro, GPQA) "
    "right with probability P, seeded per question (default: none, generated text)",
    "accuracy_data": "the benchmark data folder --accuracy reads its answers from "
    "(default: harness's sample data)",
    "seed": "seed of text generation and of fault draws",
    "tokenizer": "tokenizer spec for token accounting",
    "error_rate": "share of requests (0 to 1) answered with --error-status",
    "error_status": "HTTP status of --error-rate answers",
    "hang_rate": "share of requests (0 to 1) never answered",
    "drop_rate": "share of requests (0 to 1) whose connection is closed mid-answer",
    "malformed_json_rate": "share of answers (0 to 1) with truncated JSON",
    "malformed_sse_rate": "share of streams (0 to 1) with broken SSE framing and no [DONE]",
    "usage_skew": "add N to usage.completion_tokens (wrong usage counts)",
    "think_leak": "put a <think> block in the content even with thinking off",
    "nondeterministic": "greedy output differs per call",
    "route_divergence": "/invocations answers differently from /v1/completions",
    "ignore_max_tokens": "emit 25%% more tokens than max_tokens",
    "fail_under_concurrency": "answer 503 when more than N requests are in flight; none: never",
    "bad_input_5xx": "answer bad input with 500 instead of 400",
    "log_file": "append every request to this JSONL file",
    "log_bodies": "keep request bodies in the log",
    "log_limit": "entries kept in memory for /_sim/log (the log file keeps all)",
}


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
    p.add_argument(
        "--model",
        dest="models",
        action="append",
        metavar="NAME",
        help="served model name, repeatable (default: Qwen/Qwen3.5-4B and sim)",
    )
    p.add_argument(
        "--disable-route",
        dest="disable_route",
        action="append",
        choices=ROUTES,
        metavar="ROUTE",
        help=f"answer 404 on this route, repeatable ({', '.join(ROUTES)}; default: none)",
    )
    for name, field in SimConfig.model_fields.items():
        if name in ("models", "disable_route"):
            continue
        flag = "--" + name.replace("_", "-")
        default = field.default
        # the knobs default to None here (only those given override SimConfig); the help
        # shows SimConfig's own default
        shown = "off" if default is False else "on" if default is True else default
        text = _HELP[name]
        if "default" not in text:  # a help that says its default already is not told twice
            text += f" (default: {'none' if shown is None else shown})"
        if isinstance(default, bool):
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=text)
            continue
        kind: type = str
        if name in ("tokenizer", "log_file", "accuracy_data"):
            kind = str
        elif (
            name == "accuracy"
            or isinstance(default, float)
            or name.endswith(("_ms", "_rate", "_us"))
            or "ms_per" in name
        ):
            kind = float
        else:
            kind = int
        p.add_argument(flag, type=kind, default=None, metavar=_metavar(name, kind), help=text)
    p.set_defaults(func=run)


def _metavar(name: str, kind: type) -> str:
    if name.endswith("_rate"):
        return "RATE"  # a share of requests, 0 to 1
    if name.endswith("_ms") or "_ms_" in name:
        return "MS"
    if name.endswith("_us"):
        return "US"
    if name == "log_file":
        return "FILE"
    if name == "accuracy":
        return "P"
    if name == "accuracy_data":
        return "DIR"
    return "N" if kind is not str else "TEXT"


def config_from_args(args: argparse.Namespace) -> SimConfig:
    knobs: dict[str, object] = {}
    for name in SimConfig.model_fields:
        value = getattr(args, name, None)
        if value is not None:
            knobs[name] = tuple(value) if isinstance(value, list) else value
    return make_config(**knobs)


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
