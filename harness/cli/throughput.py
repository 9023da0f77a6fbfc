"""``harness throughput``: the Paris concurrency sweep, its weighted score, and strict additions."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from harness.cli.common import (
    READY_DEFAULT,
    RunContext,
    add_common,
    http_url,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.errors import UsageError
from harness.throughput.config import ThroughputConfig, from_profile, parse_levels
from harness.throughput.core import exit_code, measure_throughput
from harness.throughput.render import ConsoleHooks, render_report


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "throughput",
        help="concurrency sweep, verified tok/s per level and the weighted score",
        description="The grader's throughput sweep (official), or strict: fresh prompts per "
        "level and failed spot checks fail the run. Settings that differ from the profile's "
        "are recorded as non-official in throughput.json.",
    )
    p.add_argument(
        "--url",
        type=http_url,
        metavar="URL",
        help="server base URL, e.g. http://127.0.0.1:8080 (required)",
    )
    p.add_argument(
        "--mode",
        choices=("official", "strict"),
        default="official",
        help="official: the grader's loop; strict: fresh prompts per level, failed spot"
        " checks fail the run (default: %(default)s)",
    )
    p.add_argument(
        "--levels", help="comma-separated concurrency levels (default: the profile's, 1,…,64)"
    )
    p.add_argument(
        "--requests-per-level",
        type=positive_int,
        metavar="N",
        help="timed requests per level (default: the profile's, 64)",
    )
    p.add_argument(
        "--warmup",
        type=non_negative_int,
        metavar="N",
        help="warm-up requests per level (default: the profile's, 2)",
    )
    p.add_argument(
        "--prompt-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL prompt length in tokens (default: the profile's, 1024)",
    )
    p.add_argument(
        "--max-tokens",
        type=positive_int,
        metavar="N",
        help="NON-OFFICIAL max_tokens (default: the profile's, 1024)",
    )
    p.add_argument(
        "--spot-checks",
        type=non_negative_int,
        metavar="N",
        help="math spot checks per level (default: the profile's, 2)",
    )
    p.add_argument(
        "--force-length",
        action="store_true",
        help="send ignore_eos + min_tokens so answers are really max_tokens long",
    )
    p.add_argument(
        "--seed",
        type=int,
        help="prompt and spot-check seed: replays a run's prompts exactly (default: a fresh "
        "one per run, recorded)",
    )
    p.add_argument("--model", help="the body's model field (default: the profile's if served)")
    p.add_argument(
        "--tokenizer", help="qwen:MODEL | tokenizer.json or model folder (default: profile)"
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=1800.0,
        metavar="S",
        help="per-request timeout in s (default: %(default)g)",
    )
    p.add_argument(
        "--wait-ready",
        action="store_true",
        help="official mode: poll the ready path before the sweep (a request the grader's "
        "sweep does not send: recorded as non-official; default: off, strict mode always waits)",
    )
    p.add_argument(
        "--ready-timeout",
        type=positive_float,
        metavar="S",
        help=f"readiness wait in s, strict mode or --wait-ready (default: {READY_DEFAULT})",
    )
    p.add_argument(
        "--ready-interval",
        type=positive_float,
        metavar="S",
        help="readiness poll interval in s (default: the profile's, 5)",
    )
    p.add_argument("--no-chart", action="store_true", help="do not write throughput.png")
    p.add_argument(
        "--metrics",
        choices=("auto", "on", "off"),
        default="auto",
        help="scrape the server's /metrics around each level for attribution "
        "(auto: off in official mode, on in strict)",
    )
    p.add_argument(
        "--usage-probe",
        choices=("auto", "on", "off"),
        default="auto",
        help="after the sweep, ask the server for its token ids where usage exceeds the "
        "answers' text (auto: off in official mode, on in strict)",
    )
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> ThroughputConfig:
    spec = ctx.profile.require_throughput()
    return from_profile(
        ctx.profile,
        args.url,
        mode=args.mode,
        levels=parse_levels(args.levels, spec),
        requests_per_level=args.requests_per_level,
        warmup=args.warmup,
        prompt_tokens=args.prompt_tokens,
        max_tokens=args.max_tokens,
        spot_checks=args.spot_checks,
        force_length=args.force_length or None,
        seed=args.seed,
        model=args.model,
        tokenizer=args.tokenizer,
        timeout_s=args.timeout,
        ready_interval_s=args.ready_interval,
        ready_timeout_s=args.ready_timeout,
        wait_ready=args.wait_ready or None,
        chart=not args.no_chart,
        metrics=args.metrics,
        usage_probe=args.usage_probe,
    )


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
    return exit_code(report)
