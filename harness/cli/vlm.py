"""``harness vlm run | import | latency``: the AICAS VLM benchmark in-process, or over HTTP."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from rich.console import Console

from harness.cli.common import (
    RunContext,
    add_common,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.vlm.config import VlmOverrides, VlmRunConfig, from_profile, http_from_profile
from harness.vlm.core import exit_code, import_vlm, measure_vlm, measure_vlm_http
from harness.vlm.render import ConsoleHooks, render_vlm
from harness.vlm.report import VlmReport


def _overrides(p: argparse.ArgumentParser, *, warmup: bool = True) -> None:
    if warmup:
        p.add_argument(
            "--warmup-samples",
            type=non_negative_int,
            help="NON-OFFICIAL: warm-up samples (default: the profile's, 10)",
        )
        p.add_argument(
            "--warmup-tokens",
            type=positive_int,
            help="NON-OFFICIAL: warm-up tokens (default: the profile's, 10)",
        )
    p.add_argument(
        "--throughput-tokens",
        type=positive_int,
        help="NON-OFFICIAL: tokens of the tok/s call (default: the profile's, 128)",
    )
    p.add_argument(
        "--answer-tokens",
        type=positive_int,
        help="NON-OFFICIAL: answer cap, for CPU tests (default: the profile's, 1024)",
    )


def _given(args: argparse.Namespace) -> VlmOverrides:
    return VlmOverrides(
        warmup_samples=getattr(args, "warmup_samples", None),
        warmup_tokens=getattr(args, "warmup_tokens", None),
        throughput_tokens=args.throughput_tokens,
        answer_tokens=args.answer_tokens,
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vlm", help="AICAS VLM benchmark: in-process (run) or over HTTP (latency)")
    vsub = p.add_subparsers(dest="vlm_command", metavar="SUBCOMMAND")
    r = vsub.add_parser("run", help="the organisers' procedure, call for call, on your wrapper")
    r.add_argument("--wrapper-dir", required=True, help="folder holding evaluation_wrapper.py")
    r.add_argument("--model-path", required=True, help="model folder passed to VLMModel()")
    r.add_argument("--dataset-path", required=True, help="TextVQA save_to_disk folder")
    r.add_argument(
        "--num-samples", type=positive_int, help="first N rows (default: min(5000, len))"
    )
    r.add_argument(
        "--python", default=sys.executable, help="the participant's Python (default: this one)"
    )
    r.add_argument(
        "--baseline",
        metavar="RUN",
        help="a run folder of the template wrapper, same machine (default: none)",
    )
    r.add_argument(
        "--seed", type=int, help="--random-seed: seeds RNGs, never the order (default: none)"
    )
    r.add_argument(
        "--timeout",
        type=positive_float,
        help="stop the runner after this many seconds (default: no limit)",
    )
    _overrides(r)
    add_common(r)
    r.set_defaults(func=run_cmd, profile="aicas-vlm")
    i = vsub.add_parser(
        "import",
        help="records written by the runner elsewhere (e.g. a GPU box) → vlm.json + result.json",
    )
    i.add_argument("records", help="the runner's JSON-lines file (vlm-records.jsonl)")
    i.add_argument(
        "--model-path", help="the model folder, for the pixel-budget check (default: none)"
    )
    i.add_argument(
        "--baseline", metavar="RUN", help="a run folder of the template wrapper (default: none)"
    )
    _overrides(i)
    add_common(i)
    i.set_defaults(func=import_cmd, profile="aicas-vlm")
    h = vsub.add_parser("latency", help="the same figures over HTTP (OpenAI chat with image_url)")
    h.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:8000")
    h.add_argument("--dataset-path", required=True, help="TextVQA save_to_disk folder")
    h.add_argument(
        "--num-samples", type=positive_int, help="first N rows (default: min(5000, len))"
    )
    h.add_argument("--model", help="the model name sent (default: the profile's)")
    _overrides(h, warmup=False)
    h.add_argument(
        "--request-timeout",
        type=positive_float,
        default=600.0,
        help="per request, s (default: %(default)s)",
    )
    add_common(h)
    h.set_defaults(func=latency_cmd, profile="aicas-vlm")


def _finish(args: argparse.Namespace, console: Console, rep: VlmReport, folder: Path) -> int:
    render_vlm(console, rep, str(folder))
    if args.json:
        sys.stdout.write(rep.to_json() + "\n")
    return exit_code(rep)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> VlmRunConfig:
    """``vlm run``'s flags → the one typed config (the profile's procedure, then overrides)."""
    return from_profile(
        ctx.profile,
        Path(args.wrapper_dir),
        model_path=Path(args.model_path),
        dataset_path=Path(args.dataset_path),
        python=args.python,
        num_samples=args.num_samples,
        seed=args.seed,
        baseline=Path(args.baseline) if args.baseline else None,
        timeout_s=args.timeout,
        overrides=_given(args),
    )


def run_cmd(args: argparse.Namespace) -> int:
    ctx = start_run(args, "vlm")
    cfg = config_from_args(args, ctx)
    hooks = ConsoleHooks(ctx.console)
    try:
        rep = measure_vlm(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
    finally:
        hooks.close()
    return _finish(args, ctx.console, rep, ctx.folder)


def import_cmd(args: argparse.Namespace) -> int:
    ctx = start_run(args, "vlm")
    cfg = from_profile(
        ctx.profile,
        Path("."),
        model_path=Path(args.model_path or "."),
        dataset_path=Path("."),
        baseline=Path(args.baseline) if args.baseline else None,
        overrides=_given(args),
    )
    rep = import_vlm(Path(args.records), cfg, provenance=ctx.provenance, folder=ctx.folder)
    return _finish(args, ctx.console, rep, ctx.folder)


def latency_cmd(args: argparse.Namespace) -> int:
    ctx = start_run(args, "vlm-latency", url=args.url)
    cfg = http_from_profile(
        ctx.profile,
        args.url,
        dataset_path=Path(args.dataset_path),
        model=args.model,
        num_samples=args.num_samples,
        request_timeout_s=args.request_timeout,
        api_key=os.environ.get("HARNESS_API_KEY"),
        overrides=_given(args),
    )
    hooks = ConsoleHooks(ctx.console)
    try:
        rep = asyncio.run(
            measure_vlm_http(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
        )
    finally:
        hooks.close()
    return _finish(args, ctx.console, rep, ctx.folder)
