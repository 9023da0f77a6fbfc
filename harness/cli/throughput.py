"""``harness throughput``: the Paris concurrency sweep, its weighted score, and strict additions."""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time

from harness.attribution import metrics_enabled, section_for, section_lines
from harness.cli.common import (
    add_common,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.client.metrics import MetricsRecorder
from harness.client.readiness import wait_ready
from harness.errors import EXIT_FAIL, EXIT_OK, EXIT_TARGET, UsageError
from harness.throughput.analysis import build_report
from harness.throughput.chart import write_chart
from harness.throughput.config import from_profile, parse_levels
from harness.throughput.render import SweepProgress, render_report
from harness.throughput.runner import ThroughputState, run_sweep
from harness.tokenizer import load_tokenizer


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "throughput",
        help="concurrency sweep, verified tok/s per level and the weighted score",
        description="The grader's throughput sweep (official), or strict: fresh prompts per "
        "level and failed spot checks fail the run. Settings that differ from the profile's "
        "are recorded as non-official in throughput.json.",
    )
    p.add_argument("--url", help="server base URL, e.g. http://127.0.0.1:8080")
    p.add_argument("--mode", choices=("official", "strict"), default="official")
    p.add_argument("--levels", help="comma-separated concurrency levels (default: the profile's)")
    p.add_argument("--requests-per-level", type=positive_int, help="timed requests per level")
    p.add_argument("--warmup", type=non_negative_int, help="warm-up requests per level")
    p.add_argument("--prompt-tokens", type=positive_int, help="NON-OFFICIAL prompt length")
    p.add_argument("--max-tokens", type=positive_int, help="NON-OFFICIAL max_tokens")
    p.add_argument("--spot-checks", type=non_negative_int, help="math spot checks per level")
    p.add_argument(
        "--force-length",
        action="store_true",
        help="send ignore_eos + min_tokens so answers are really max_tokens long",
    )
    p.add_argument("--seed", type=int, help="prompt seed (default: random, recorded)")
    p.add_argument("--model", help="the body's model field (default: the profile's if served)")
    p.add_argument(
        "--tokenizer", help="qwen:MODEL | tokenizer.json or model folder (default: profile)"
    )
    p.add_argument("--timeout", type=positive_float, default=1800.0, help="per-request timeout, s")
    p.add_argument("--ready-timeout", type=positive_float, help="readiness wait, s")
    p.add_argument("--ready-interval", type=positive_float, help="readiness poll interval, s")
    p.add_argument("--no-chart", action="store_true", help="do not write throughput.png")
    p.add_argument(
        "--metrics",
        choices=("auto", "on", "off"),
        default="auto",
        help="scrape the server's /metrics around each level for attribution "
        "(auto: off in official mode, on in strict)",
    )
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.url:
        raise UsageError(
            "--url is required", hint="e.g. harness throughput --url http://127.0.0.1:8080"
        )
    ctx = start_run(args, "throughput", url=args.url)
    spec = ctx.profile.require_throughput()
    cfg = from_profile(
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
        seed=args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31),
        model=args.model,
        tokenizer=args.tokenizer,
        timeout_s=args.timeout,
    )
    tok = load_tokenizer(cfg.tokenizer)
    console = ctx.console
    ready = ctx.profile.readiness
    ready_path = ctx.profile.server.ready_path
    with console.status(f"waiting for {cfg.url}{ready_path} …"):
        asyncio.run(
            wait_ready(
                cfg.url,
                ready_path,
                interval_s=args.ready_interval or ready.poll_interval_s,
                timeout_s=args.ready_timeout or ready.timeout_s,
            )
        )
    state = ThroughputState()
    scraping = metrics_enabled(args.metrics, cfg.mode)
    recorder = MetricsRecorder(cfg.url, enabled=scraping)
    progress = SweepProgress(console)
    complete = False
    started = time.perf_counter()
    try:
        with progress.live():
            asyncio.run(
                run_sweep(
                    cfg,
                    tok,
                    state,
                    on_start=progress.on_start,
                    on_done=progress.on_done,
                    on_edge=recorder.edge,
                )
            )
        complete = True
    finally:
        report = build_report(
            cfg,
            state,
            ctx.provenance,
            complete=complete,
            wall_s=time.perf_counter() - started,
        )
        report.attribution = section_for(
            recorder.pairs, recorder.notes, scraped=scraping, choice=args.metrics
        )
        if complete and not args.no_chart:
            chart = write_chart(report, ctx.folder)
            report.chart = chart.name if chart else None
        report.save(ctx.folder)
        if not complete:
            print(
                f"harness: partial throughput report saved: {ctx.folder}/throughput.json",
                file=sys.stderr,
            )
    render_report(console, report, str(ctx.folder))
    for line in section_lines(report.attribution):
        console.print(f"attribution: {line}", markup=False)
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(exclude={"requests"}), indent=2) + "\n")
    if any(lv.n_ok == 0 for lv in report.levels):
        return EXIT_TARGET
    if report.passed is False:
        return EXIT_FAIL
    return EXIT_OK
