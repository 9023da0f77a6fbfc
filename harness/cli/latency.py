"""``harness latency``: the grader's latency buckets (official) and a strict mode beside them."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from harness.cli.common import (
    RunContext,
    add_common,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.errors import UsageError
from harness.latency.config import LatencyConfig, from_profile
from harness.latency.core import exit_code, measure_latency, measure_latency_repeats
from harness.latency.render import ConsoleHooks, render_report
from harness.latency.repeats import render_repeats


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "latency", help="latency buckets, speedup and score (official | strict | both)"
    )
    p.add_argument("--url", help="server base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--mode", choices=("official", "strict", "both"), default="official")
    p.add_argument("--endpoint", help="official endpoint (default: the profile's, /invocations)")
    p.add_argument(
        "--runs", type=positive_int, help="timed requests per bucket (default: profile, 50)"
    )
    p.add_argument(
        "--warmup", type=non_negative_int, help="warm-up requests per bucket (default: profile, 5)"
    )
    p.add_argument(
        "--buckets", help="comma-separated bucket names (default: all, e.g. short,medium,long)"
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=600.0,
        help="per-request timeout in s (default: 600)",
    )
    p.add_argument(
        "--tokenizer",
        help="qwen:MODEL | tokenizer.json or model folder | server (default: profile)",
    )
    p.add_argument("--model", help="strict mode's model field (default: the server's first model)")
    p.add_argument(
        "--concurrency", type=positive_int, default=1, help="strict mode: requests in flight"
    )
    p.add_argument(
        "--force-length", action="store_true", help="strict mode: send ignore_eos + min_tokens"
    )
    p.add_argument("--seed", type=int, default=0, help="strict prompts' seed (default: 0)")
    p.add_argument(
        "--ready-timeout", type=positive_float, help="readiness wait in s (default: profile, 600)"
    )
    p.add_argument(
        "--ready-interval", type=positive_float, help="readiness poll interval in s (default: 5)"
    )
    p.add_argument(
        "--metrics",
        choices=("auto", "on", "off"),
        default="auto",
        help="scrape the server's /metrics around each bucket for attribution "
        "(auto: off in official mode, on in strict/both)",
    )
    p.add_argument(
        "--until-ci",
        type=positive_float,
        metavar="PCT",
        help="stop each bucket once the 95 %% interval of its median is within ±PCT %% of the "
        "median (at least 10 timed runs, at most --runs); an estimate, flagged non-official "
        "(default: off, every run)",
    )
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        help="run the whole procedure N times: repeat-i/ folders, a pooled latency.json and "
        "the between-run spread in latency_repeats.json (harness compare uses it)",
    )
    p.add_argument("--no-calibrate", action="store_true", help="skip the client timing self-check")
    p.add_argument(
        "--self-test", action="store_true", help="measure the harness's own timing error"
    )
    p.add_argument(
        "--st-ttft-ms", type=positive_float, default=50.0, help="self-test: simulator TTFT"
    )
    p.add_argument(
        "--st-itl-ms", type=positive_float, default=10.0, help="self-test: simulator ITL"
    )
    p.add_argument(
        "--st-output-tokens", type=positive_int, default=128, help="self-test: tokens per request"
    )
    add_common(p)
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, ctx: RunContext) -> LatencyConfig:
    return from_profile(
        ctx.profile,
        args.url,
        buckets=args.buckets,
        mode=args.mode,
        endpoint=args.endpoint,
        runs=args.runs,
        warmup=args.warmup,
        timeout_s=args.timeout,
        tokenizer=args.tokenizer,
        model=args.model,
        concurrency=args.concurrency,
        force_length=args.force_length,
        seed=args.seed,
        ready_interval_s=args.ready_interval,
        ready_timeout_s=args.ready_timeout,
        calibrate=not args.no_calibrate,
        metrics=args.metrics,
        until_ci=args.until_ci,
    )


def run(args: argparse.Namespace) -> int:
    if args.self_test:
        from harness.cli.selftest import run_self_test_cli

        return run_self_test_cli(args)
    if not args.url:
        raise UsageError(
            "--url is required", hint="e.g. harness latency --url http://127.0.0.1:8080"
        )
    ctx = start_run(args, "latency", url=args.url)
    cfg = config_from_args(args, ctx)
    hooks = ConsoleHooks(ctx.console)
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
        return exit_code(pooled)
    try:
        report = asyncio.run(
            measure_latency(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
        )
    finally:
        hooks.close()
    render_report(ctx.console, report, str(ctx.folder))
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(exclude={"requests"}), indent=2) + "\n")
    return exit_code(report)
