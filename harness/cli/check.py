"""``harness check``: API conformance of every endpoint the profile names (docs/check.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from rich.console import Console

from harness.cli.common import (
    READY_DEFAULT,
    add_common,
    http_url,
    make_console,
    positive_float,
    start_run,
)
from harness.conformance.core import exit_code, measure_check
from harness.conformance.plan import CheckOptions, plan_run
from harness.conformance.registry import PlannedCheck
from harness.conformance.render import ConsoleHooks, render_report
from harness.errors import EXIT_OK, UsageError
from harness.profiles import load_profile


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="API conformance: routes, shapes, usage, thinking, streaming, load, bad input",
    )
    p.add_argument(
        "--url",
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080 (required, except with --list)",
    )
    p.add_argument(
        "--only",
        help="comma-separated checks or groups to run, e.g. shapes,usage (default: the profile's)",
    )
    p.add_argument("--skip", help="comma-separated checks or groups to leave out (default: none)")
    p.add_argument(
        "--tokenizer",
        help="the tokenizer usage is compared with: qwen:MODEL | tokenizer.json or model "
        "folder (default: the profile's)",
    )
    p.add_argument(
        "--model", help="model name for chat bodies (default: the graders' name if served)"
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=300.0,
        metavar="S",
        help="per-request timeout in s (default: %(default)g)",
    )
    p.add_argument(
        "--ready-timeout",
        type=positive_float,
        metavar="S",
        help=f"how long to wait for the ready path to answer 200, in s (default: {READY_DEFAULT})",
    )
    p.add_argument("--list", action="store_true", help="list the checks and exit")
    add_common(p)
    p.set_defaults(func=run)


def _list(console: Console, planned: list[PlannedCheck], required: frozenset[str]) -> int:
    for p in planned:
        mark = "required" if p.name in required else "        "
        title = p.spec.title.replace("N ", f"{p.param} ") if p.param else p.spec.title
        console.print(f"{p.name:24} {p.spec.group:12} {mark}  {title}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    opts = CheckOptions(
        only=args.only,
        skip=args.skip,
        tokenizer=args.tokenizer,
        model=args.model,
        timeout_s=args.timeout,
        ready_timeout_s=args.ready_timeout,
    )
    if args.list:
        cfg, planned = plan_run(load_profile(args.profile), args.url or "", opts)
        return _list(make_console(args), planned, cfg.required)
    if not args.url:
        raise UsageError("--url is required", hint="e.g. harness check --url http://127.0.0.1:8080")
    # Validate the selection before a run folder exists.
    cfg, planned = plan_run(load_profile(args.profile), args.url, opts)
    if not planned:
        raise UsageError("no checks selected", hint="see `harness check --list`")
    ctx = start_run(args, "check", url=args.url)
    hooks = ConsoleHooks(ctx.console, ctx.profile.name)
    report = asyncio.run(
        measure_check(cfg, planned, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
    )
    render_report(ctx.console, report, str(ctx.folder))
    if report.provenance.server is not None:
        ctx.console.print(f"server: {report.provenance.server.label()}", markup=False)
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    return exit_code(report)
