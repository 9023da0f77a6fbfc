"""``harness check``: API conformance of every endpoint the profile names (docs/check.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console

from harness.cli.common import add_common, http_url, make_console, start_run
from harness.conformance.core import exit_code, measure_check
from harness.conformance.plan import CheckOverrides, from_profile
from harness.conformance.registry import PlannedCheck
from harness.conformance.render import ConsoleHooks, render_report
from harness.errors import EXIT_OK, UsageError
from harness.profiles import load_profile
from harness.target import URL, Target


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "check",
        help="API conformance: routes, shapes, usage, thinking, streaming, load, bad input",
    )
    p.add_argument(
        URL,
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080 (required, except with --list)",
    )
    CheckOverrides.add_arguments(p)
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
    # Planned before a run folder exists, so a bad selection leaves none behind (the
    # check's config names no folder: the core is given it).
    target = Target(folder=Path(args.out or "."), url=args.url or "")
    plan = from_profile(load_profile(args.profile), target, CheckOverrides.from_args(args))
    if args.list:
        return _list(make_console(args), list(plan.planned), plan.cfg.required)
    if not args.url:
        raise UsageError("--url is required", hint="e.g. harness check --url http://127.0.0.1:8080")
    if not plan.planned:
        raise UsageError("no checks selected", hint="see `harness check --list`")
    ctx = start_run(args, "check", url=args.url)
    hooks = ConsoleHooks(ctx.console, ctx.profile.name)
    report = asyncio.run(
        measure_check(
            plan.cfg, plan.planned, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks
        )
    )
    render_report(ctx.console, report, str(ctx.folder))
    if report.provenance.server is not None:
        ctx.console.print(f"server: {report.provenance.server.label()}", markup=False)
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    return exit_code(report)
