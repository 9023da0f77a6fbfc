"""``harness quality``: MMLU-Pro / IFEval / GPQA-Diamond the way the grader scores them."""

from __future__ import annotations

import argparse
import sys

from harness.cli.common import RunContext, add_common, http_url, start_run
from harness.quality.config import QualityConfig, QualityOverrides, from_profile
from harness.quality.console import ConsoleHooks
from harness.quality.core import exit_code, measure_quality
from harness.quality.render import render_report
from harness.quality.resume import RESUME_ANSWERS
from harness.target import URL, Target


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "quality",
        help="MMLU-Pro / IFEval / GPQA-Diamond via lm-eval, as the grader runs them",
        description="Score the quality gates through lm-eval 0.4.11 exactly as the grader does "
        "(official mode). Non-official settings are recorded as such in quality.json.",
    )
    p.add_argument(
        URL,
        required=True,
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080",
    )
    QualityOverrides.add_arguments(p)
    p.add_argument(  # one spelling for both commands: harness gate takes this one
        "--quality-only",
        dest="only",
        metavar="NAMES",
        help="the same as --only, as harness gate spells it (default: all in the profile)",
    )
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> QualityConfig:
    target = Target(folder=ctx.folder, url=args.url)
    return from_profile(ctx.profile, target, QualityOverrides.from_args(args))


def run(args: argparse.Namespace) -> int:
    ctx = start_run(args, "quality", url=args.url)
    cfg = config_from_args(args, ctx)
    # a --fresh run's answers were stored without asking who the server is: reuse them all
    again = "" if cfg.resume else f" {RESUME_ANSWERS}"
    hooks = ConsoleHooks(
        ctx.console, resume_hint=f"harness quality --url {args.url} --out {ctx.folder}{again}"
    )
    try:
        report = measure_quality(
            cfg, provenance=ctx.provenance, hooks=hooks, verbose=bool(getattr(args, "verbose", 0))
        )
    finally:
        hooks.close()
    render_report(ctx.console, report)
    ctx.console.print(f"run folder: {ctx.folder}")
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    return exit_code(report)
