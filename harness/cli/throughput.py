"""``harness throughput``: the Paris concurrency sweep, its weighted score, and strict additions."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from harness.cli.common import RunContext, add_common, http_url, start_run
from harness.errors import UsageError
from harness.target import URL, Target
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.core import exit_code, measure_throughput
from harness.throughput.render import ConsoleHooks, no_success_line, render_report


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "throughput",
        help="concurrency sweep, verified tok/s per level and the weighted score",
        description="The grader's throughput sweep (official), or strict: fresh prompts per "
        "level and failed spot checks fail the run. Settings that differ from the profile's "
        "are recorded as non-official in throughput.json.",
    )
    p.add_argument(
        URL,
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080 (required)",
    )
    ThroughputOverrides.add_arguments(p)
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> ThroughputConfig:
    target = Target(folder=ctx.folder, url=args.url)
    return from_profile(ctx.profile, target, ThroughputOverrides.from_args(args))


def run(args: argparse.Namespace) -> int:
    if not args.url:
        raise UsageError(
            "--url is required", hint="e.g. harness throughput --url http://127.0.0.1:8080"
        )
    ctx = start_run(args, "throughput", url=args.url)
    cfg = config_from_args(args, ctx)
    hooks = ConsoleHooks(ctx.console)
    try:
        report = asyncio.run(
            measure_throughput(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
        )
    finally:
        hooks.close()
    render_report(ctx.console, report, str(ctx.folder))
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(exclude={"requests"}), indent=2) + "\n")
    line = no_success_line(report)
    if line is not None:  # exit 3: the report is saved; stderr says why in one line
        print(f"harness: error: {line}", file=sys.stderr)
    return exit_code(report)
