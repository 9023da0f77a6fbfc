"""``harness quality``: MMLU-Pro / IFEval / GPQA-Diamond the way the grader scores them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.common import RunContext, add_common, positive_float, positive_int, start_run
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
    p.add_argument("--url", required=True, help="server base URL, e.g. http://127.0.0.1:8080")
    p.add_argument(
        "--limit",
        type=positive_float,
        help="QUALITY_LIMIT: below 1.0 the first ceil(f*n) docs of each task, else all "
        "(default: the profile's)",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        help=f"benchmark data folder (default: ${DATA_DIR_ENV} or ~/.cache/harness/data)",
    )
    p.add_argument(
        "--nltk-data",
        type=Path,
        help="NLTK data folder for IFEval's punkt_tab (default: DATA_DIR/nltk_data when it "
        "holds punkt_tab, else the harness cache; written there offline when missing)",
    )
    p.add_argument("--only", help="comma-separated benchmark names (default: all in the profile)")
    p.add_argument(
        "--max-gen-toks",
        type=positive_int,
        help="NON-OFFICIAL: cap every request's max_tokens (for slow test servers)",
    )
    p.add_argument("--stream", action="store_true", help="stream thinking benchmarks (GPQA)")
    p.add_argument(
        "--idle-timeout", type=positive_float, default=120.0, help="streamed: max silence, s"
    )
    p.add_argument("--endpoint", help="NON-OFFICIAL: post somewhere else than the profile says")
    p.add_argument("--model", help="NON-OFFICIAL: the body's model name (default: the profile's)")
    p.add_argument(
        "--fresh", action="store_true", help="ignore answers cached in the run folder (--out)"
    )
    p.add_argument(
        "--ready-timeout", type=positive_float, help="readiness wait in s (default: profile, 600)"
    )
    p.add_argument(
        "--decide",
        action="store_true",
        help="NON-OFFICIAL, an estimate: ask each benchmark's documents in a seeded random "
        "order and stop once its gate decision is settled (risk < 0.001); a later run "
        "without it, same --out, completes the set from the answer cache (default: off)",
    )
    p.add_argument(
        "--seed",
        type=int,
        help="--decide: the documents' order seed (default: drawn at random, recorded)",
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
        decide=args.decide,
        seed=args.seed,
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
