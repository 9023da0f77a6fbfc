"""``harness quality``: MMLU-Pro / IFEval / GPQA-Diamond the way the grader scores them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.common import (
    LIMIT_HELP,
    READY_DEFAULT,
    RunContext,
    add_common,
    http_url,
    positive_float,
    positive_int,
    quality_limit,
    start_run,
)
from harness.data.layout import DATA_DIR_ENV
from harness.quality.config import QualityConfig
from harness.quality.console import ConsoleHooks
from harness.quality.core import exit_code, from_profile, measure_quality
from harness.quality.render import render_report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "quality",
        help="MMLU-Pro / IFEval / GPQA-Diamond via lm-eval, as the grader runs them",
        description="Score the quality gates through lm-eval 0.4.11 exactly as the grader does "
        "(official mode). Non-official settings are recorded as such in quality.json.",
    )
    p.add_argument(
        "--url",
        required=True,
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080",
    )
    p.add_argument(
        "--limit",
        type=quality_limit,
        metavar="F|N",
        help=f"{LIMIT_HELP} (default: the profile's, 0.1 for efficient-qwen)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help=f"benchmark data folder (default: ${DATA_DIR_ENV} or ~/.cache/harness/data)",
    )
    p.add_argument(
        "--nltk-data",
        type=Path,
        metavar="DIR",
        help="NLTK data folder for IFEval's punkt_tab (default: DATA_DIR/nltk_data when it "
        "holds punkt_tab, else the harness cache; written there offline when missing)",
    )
    p.add_argument("--only", help="comma-separated benchmark names (default: all in the profile)")
    p.add_argument(
        "--max-gen-toks",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL: cap every request's max_tokens, for slow test servers"
        " (default: none, the profile's budgets)",
    )
    p.add_argument("--stream", action="store_true", help="stream thinking benchmarks (GPQA)")
    p.add_argument(
        "--idle-timeout",
        type=positive_float,
        default=120.0,
        metavar="S",
        help="with --stream: the longest silence between reads, in s (default: %(default)g)",
    )
    p.add_argument(
        "--endpoint",
        help="NON-OFFICIAL: post somewhere else (default: the profile's [quality] endpoint)",
    )
    p.add_argument("--model", help="NON-OFFICIAL: the body's model name (default: the profile's)")
    p.add_argument(
        "--fresh", action="store_true", help="ignore answers cached in the run folder (--out)"
    )
    p.add_argument(
        "--ready-timeout",
        type=positive_float,
        metavar="S",
        help=f"readiness wait in s (default: {READY_DEFAULT})",
    )
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> QualityConfig:
    return from_profile(
        ctx.profile,
        args.url,
        ctx.folder,
        data_dir=args.data_dir,
        nltk_data=args.nltk_data,
        limit=args.limit,
        only=args.only,
        max_gen_toks=args.max_gen_toks,
        stream=args.stream,
        idle_timeout_s=args.idle_timeout,
        endpoint=args.endpoint,
        model=args.model,
        resume=not args.fresh,
        ready_timeout_s=args.ready_timeout,
    )


def run(args: argparse.Namespace) -> int:
    ctx = start_run(args, "quality", url=args.url)
    cfg = config_from_args(args, ctx)
    hooks = ConsoleHooks(
        ctx.console, resume_hint=f"harness quality --url {args.url} --out {ctx.folder}"
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
