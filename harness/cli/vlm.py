"""``harness vlm run | import | latency``: the AICAS VLM benchmark in-process, or over HTTP."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console

from harness.cli.common import RunContext, add_common, http_url, start_run
from harness.target import URL, Target
from harness.vlm.config import (
    HTTP_FLAGS,
    IMPORT_FLAGS,
    RUN_FLAGS,
    RUN_REQUIRED,
    VlmOverrides,
    VlmRunConfig,
    from_profile,
    http_from_profile,
    import_from_profile,
)
from harness.vlm.core import exit_code, import_vlm, measure_vlm, measure_vlm_http
from harness.vlm.render import ConsoleHooks, render_vlm
from harness.vlm.report import VlmReport

AICAS = "aicas-vlm"  # the contest these commands measure for


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("vlm", help="AICAS VLM benchmark: in-process (run) or over HTTP (latency)")
    vsub = p.add_subparsers(dest="vlm_command", metavar="SUBCOMMAND", required=True)
    r = vsub.add_parser("run", help="the organisers' procedure, call for call, on your wrapper")
    VlmOverrides.add_arguments(r, only=RUN_FLAGS, required=RUN_REQUIRED)
    add_common(r, profile=AICAS)
    r.set_defaults(func=run_cmd)
    i = vsub.add_parser(
        "import",
        help="records written by the runner elsewhere (e.g. a GPU box) → vlm.json + result.json",
    )
    i.add_argument(
        "records", metavar="FILE", help="the runner's JSON-lines file (vlm-records.jsonl)"
    )
    VlmOverrides.add_arguments(i, only=IMPORT_FLAGS)
    add_common(i, profile=AICAS)
    i.set_defaults(func=import_cmd)
    h = vsub.add_parser("latency", help="the same figures over HTTP (OpenAI chat with image_url)")
    h.add_argument(
        URL,
        required=True,
        type=http_url,
        metavar="URL",
        help="the server's base URL, e.g. http://127.0.0.1:8000",
    )
    VlmOverrides.add_arguments(h, only=HTTP_FLAGS, required=("dataset_path",))
    add_common(h, profile=AICAS)
    h.set_defaults(func=latency_cmd)


def _finish(args: argparse.Namespace, console: Console, rep: VlmReport, folder: Path) -> int:
    render_vlm(console, rep, str(folder))
    if args.json:
        sys.stdout.write(rep.to_json() + "\n")
    return exit_code(rep)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> VlmRunConfig:
    """``vlm run``'s flags → the one typed config (the profile's procedure, then overrides)."""
    return from_profile(ctx.profile, Target(folder=ctx.folder), VlmOverrides.from_args(args))


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
    cfg = import_from_profile(ctx.profile, VlmOverrides.from_args(args))
    rep = import_vlm(Path(args.records), cfg, provenance=ctx.provenance, folder=ctx.folder)
    return _finish(args, ctx.console, rep, ctx.folder)


def latency_cmd(args: argparse.Namespace) -> int:
    ctx = start_run(args, "vlm-latency", url=args.url)
    target = Target(folder=ctx.folder, url=args.url)
    cfg = http_from_profile(ctx.profile, target, VlmOverrides.from_args(args))
    hooks = ConsoleHooks(ctx.console)
    try:
        rep = asyncio.run(
            measure_vlm_http(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
        )
    finally:
        hooks.close()
    return _finish(args, ctx.console, rep, ctx.folder)
