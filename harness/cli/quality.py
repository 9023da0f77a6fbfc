"""``harness quality``: MMLU-Pro / IFEval / GPQA-Diamond the way the grader scores them."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from harness.cli.common import add_common, positive_float, positive_int, start_run
from harness.data.layout import DATA_DIR_ENV, default_data_dir
from harness.data.punkt import default_nltk_data
from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_OK
from harness.quality.config import QualityConfig
from harness.quality.render import RichProgress, render_report
from harness.quality.report import QualityReport


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
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    ctx = start_run(args, "quality", url=args.url)
    spec = ctx.profile.require_quality()
    data_dir = (args.data_dir or default_data_dir()).resolve()
    cfg = QualityConfig(
        url=args.url,
        profile=ctx.profile,
        data_dir=data_dir,
        nltk_data=(args.nltk_data or default_nltk_data(data_dir)).resolve(),
        folder=ctx.folder,
        limit=args.limit if args.limit is not None else spec.limit,
        only=tuple(n.strip() for n in (args.only or "").split(",") if n.strip()),
        max_gen_toks=args.max_gen_toks,
        stream=args.stream,
        idle_timeout_s=args.idle_timeout,
        endpoint=args.endpoint,
        model=args.model,
        resume=not args.fresh,
    )
    report = QualityReport(
        provenance=ctx.provenance,
        url=args.url,
        endpoint=args.endpoint or spec.endpoint,
        model=cfg.model_name,
        official=not cfg.non_official(),
        non_official=cfg.non_official(),
        limit=cfg.limit,
        lm_eval_version=_lm_eval_version(),
        data_dir=str(data_dir),
        complete=False,
    )
    if report.lm_eval_version != spec.lm_eval_version:
        report.non_official["lm_eval_version"] = report.lm_eval_version
        report.official = False
    if not getattr(args, "verbose", 0):
        # lm-eval warns about every default it "overwrites" with the same value
        logging.getLogger("lm_eval").setLevel(logging.ERROR)
    from harness.quality.runner import run_quality

    try:
        with RichProgress(ctx.console) as bars:
            run_quality(cfg, report, bars.sink)
    except KeyboardInterrupt:
        report.complete = False
        report.save(ctx.folder)
        ctx.console.print(f"interrupted: partial report and answer cache in {ctx.folder}")
        ctx.console.print(f"resume with: harness quality --url {args.url} --out {ctx.folder}")
        raise
    render_report(ctx.console, report)
    ctx.console.print(f"run folder: {ctx.folder}")
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    if not report.complete:
        return EXIT_INCOMPLETE
    return EXIT_OK if report.passed else EXIT_FAIL


def _lm_eval_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lm_eval")
    except PackageNotFoundError:
        return os.environ.get("LM_EVAL_VERSION", "unknown")
