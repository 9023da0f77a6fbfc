"""``harness latency``: the grader's latency buckets (official) and a strict mode beside them."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from harness.cli.common import (
    RunContext,
    add_common,
    http_url,
    positive_float,
    positive_int,
    start_run,
)
from harness.errors import EXIT_TARGET, UsageError
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.latency.core import exit_code, measure_latency, measure_latency_repeats
from harness.latency.render import ConsoleHooks, render_report, target_failure
from harness.latency.repeats import render_repeats
from harness.latency.report import LatencyReport
from harness.latency.resume import (
    FORCE,
    RESUME,
    guard_folder,
    record_in,
    resume_command,
    resume_from,
)
from harness.target import URL, Target


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "latency", help="latency buckets, speedup and score (official | strict | both)"
    )
    p.add_argument(
        URL,
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080 (required)",
    )
    LatencyOverrides.add_arguments(p)
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        help="run the whole procedure N times: repeat-i/ folders, a pooled latency.json and "
        "the between-run spread in latency_repeats.json (harness compare uses it)",
    )
    p.add_argument(
        "--self-test", action="store_true", help="measure the harness's own timing error"
    )
    p.add_argument(
        "--st-ttft-ms",
        type=positive_float,
        default=50.0,
        metavar="MS",
        help="self-test: simulator TTFT in ms",
    )
    p.add_argument(
        "--st-itl-ms",
        type=positive_float,
        default=10.0,
        metavar="MS",
        help="self-test: simulator ITL in ms",
    )
    p.add_argument(
        "--st-output-tokens", type=positive_int, default=128, help="self-test: tokens per request"
    )
    p.add_argument(
        RESUME,
        action="store_true",
        help="finish an interrupted run in its --out folder: keep the buckets it measured to "
        "the end, measure the rest (a bucket cut in the middle again, whole)",
    )
    p.add_argument(
        FORCE, action="store_true", help="overwrite a latency.json already in the --out folder"
    )
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> LatencyConfig:
    target = Target(folder=ctx.folder, url=args.url)
    return from_profile(ctx.profile, target, LatencyOverrides.from_args(args))


def run(args: argparse.Namespace) -> int:
    if args.self_test:
        from harness.cli.selftest import run_self_test_cli

        return run_self_test_cli(args)
    if not args.url:
        raise UsageError(
            "--url is required", hint="e.g. harness latency --url http://127.0.0.1:8080"
        )
    if args.resume and args.repeats > 1:
        raise UsageError(f"{RESUME} finishes one run, not --repeats", hint="drop --repeats")
    partial = guard_folder(args.out, resume=args.resume, force=args.force)
    ctx = start_run(args, "latency", url=args.url)
    cfg = config_from_args(args, ctx)
    target = Target(folder=ctx.folder, url=args.url)
    again = resume_command(
        target, LatencyOverrides.from_args(args), args.profile or ctx.profile.name
    )
    hooks = ConsoleHooks(ctx.console, resume_hint=again if args.repeats == 1 else "")
    state = None
    if partial is not None:
        resumed = resume_from(cfg, partial, ctx.folder)
        cfg, state = resumed.cfg, resumed.state
        record_in(ctx.provenance, partial, resumed.record)
        hooks.resuming(resumed.record)
    if args.repeats > 1:
        try:
            pooled, summary = asyncio.run(
                measure_latency_repeats(
                    cfg, args.repeats, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks
                )
            )
        finally:
            hooks.close()
        ctx.console.print(f"[bold]pooled over {args.repeats} repeats[/]")
        render_report(ctx.console, pooled, str(ctx.folder))
        render_repeats(ctx.console, summary)
        if args.json:
            out = {
                "latency": pooled.model_dump(exclude={"requests"}),
                "repeats": summary.model_dump(),
            }
            sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return _said(exit_code(pooled), pooled)
    try:
        report = asyncio.run(
            measure_latency(
                cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks, state=state
            )
        )
    finally:
        hooks.close()
    render_report(ctx.console, report, str(ctx.folder))
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(exclude={"requests"}), indent=2) + "\n")
    return _said(exit_code(report), report)


def _said(rc: int, report: LatencyReport) -> int:
    """A run that failed at the target ends with one line saying why (stderr)."""
    if rc == EXIT_TARGET and (line := target_failure(report)):
        print(f"harness: error: {line}", file=sys.stderr)
    return rc
