"""``harness latency``: the grader's latency buckets (official) and a strict mode beside them."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from harness.attribution import metrics_enabled, section_for, section_lines
from harness.cli.common import (
    RunContext,
    add_common,
    non_negative_int,
    positive_float,
    positive_int,
    start_run,
)
from harness.client.fingerprint import not_taken, take_fingerprint
from harness.client.metrics import MetricsRecorder
from harness.client.readiness import wait_ready
from harness.client.urllib_client import GraderPoll
from harness.errors import EXIT_OK, EXIT_TARGET, UsageError
from harness.latency.analysis import build_report
from harness.latency.config import LatencyConfig
from harness.latency.render import LatencyProgress, render_report
from harness.latency.repeats import (
    REPEAT_DIR,
    pool_states,
    render_repeats,
    run_repeats,
    summarize_repeats,
)
from harness.latency.report import LatencyReport
from harness.latency.runner import LatencyState, run_latency
from harness.tokenizer import Tokenizer, load_tokenizer


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
    p.add_argument("--no-calibrate", action="store_true", help="skip the client timing self-check")
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        metavar="N",
        help="run the whole procedure N times: repeat-i/ folders, pooled latency.json, "
        "between-run spread in latency_repeats.json (default: 1)",
    )
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
    spec = ctx.profile.require_latency()
    buckets = tuple(spec.buckets)
    if args.buckets:
        buckets = tuple(
            spec.bucket(name.strip()) for name in args.buckets.split(",") if name.strip()
        )
    ready = ctx.profile.readiness
    return LatencyConfig(
        url=args.url.rstrip("/"),
        mode=args.mode,
        buckets=buckets,
        endpoint=args.endpoint or spec.endpoint,
        strict_endpoint=spec.strict_endpoint,
        runs=args.runs or spec.runs,
        warmup=spec.warmup if args.warmup is None else args.warmup,
        timeout_s=args.timeout,
        tokenizer=args.tokenizer or ctx.profile.server.tokenizer,
        model=args.model,
        concurrency=args.concurrency,
        force_length=args.force_length,
        seed=args.seed,
        temperature=spec.temperature,
        filler_sentence=spec.filler_sentence,
        filler_divisor=spec.filler_divisor,
        filler_min_repeats=spec.filler_min_repeats,
        new_connection_per_request=spec.new_connection_per_request,
        ready_path=ctx.profile.server.ready_path,
        ready_interval_s=args.ready_interval or ready.poll_interval_s,
        ready_timeout_s=args.ready_timeout or ready.timeout_s,
        calibrate=not args.no_calibrate,
        think_close=ctx.profile.server.think_close,
        spec=spec,
    )


def run(args: argparse.Namespace) -> int:
    if args.self_test:
        from harness.latency.selftest import run_self_test_cli

        return run_self_test_cli(args)
    if not args.url:
        raise UsageError(
            "--url is required", hint="e.g. harness latency --url http://127.0.0.1:8080"
        )
    ctx = start_run(args, "latency", url=args.url)
    cfg = config_from_args(args, ctx)
    tok = load_tokenizer(cfg.tokenizer, server_url=cfg.url, model=cfg.model)
    if args.repeats > 1:
        return _run_repeats(args, ctx, cfg, tok)
    return _run_once(args, ctx, cfg, tok, ctx.folder, LatencyState())


def _run_repeats(
    args: argparse.Namespace, ctx: RunContext, cfg: LatencyConfig, tok: Tokenizer
) -> int:
    """The procedure N times into repeat-i/, then the pooled report and the spread (docs/compare.md)."""
    states: list[LatencyState] = []
    codes: list[int] = []
    folders: list[str] = []

    def one(i: int) -> LatencyReport:
        ctx.console.print(f"[bold]repeat {i}/{args.repeats}[/]")
        sub = REPEAT_DIR.format(i=i)
        state = LatencyState()
        codes.append(_run_once(args, ctx, cfg, tok, ctx.folder / sub, state, emit_json=False))
        states.append(state)
        folders.append(sub)
        return LatencyReport.load(ctx.folder / sub)

    reports = run_repeats(args.repeats, one)
    pooled = build_report(cfg, pool_states(states), ctx.provenance, complete=True)
    pooled.settings["repeats"] = args.repeats
    pooled.calibration = reports[-1].calibration if reports else None
    pooled.save(ctx.folder)
    summary = summarize_repeats(reports, folders)
    summary.provenance = ctx.provenance
    summary.save(ctx.folder)
    ctx.console.print(f"[bold]pooled over {args.repeats} repeats[/]")
    render_report(ctx.console, pooled, str(ctx.folder))
    render_repeats(ctx.console, summary)
    if args.json:
        out = {"latency": pooled.model_dump(exclude={"requests"}), "repeats": summary.model_dump()}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    return max(codes)


def _run_once(
    args: argparse.Namespace,
    ctx: RunContext,
    cfg: LatencyConfig,
    tok: Tokenizer,
    folder: Path,
    state: LatencyState,
    *,
    emit_json: bool = True,
) -> int:
    scraping = metrics_enabled(args.metrics, cfg.mode)
    recorder = MetricsRecorder(cfg.url, enabled=scraping)
    console = ctx.console
    progress = LatencyProgress(console)
    complete = False
    try:
        with console.status(f"waiting for {cfg.url}{cfg.ready_path} …") as status:

            def seen(attempt: int, elapsed: float, last: str) -> None:
                status.update(
                    f"waiting for {cfg.url}{cfg.ready_path}: attempt {attempt}, {elapsed:.0f} s, last: {last}"
                )

            ready = asyncio.run(
                wait_ready(
                    cfg.url,
                    cfg.ready_path,
                    interval_s=cfg.ready_interval_s,
                    timeout_s=cfg.ready_timeout_s,
                    on_attempt=seen,
                    # official: only the grader's own /ping polls reach the server
                    like_grader=GraderPoll(cfg.ready_path, cfg.ready_interval_s)
                    if cfg.mode != "strict"
                    else None,
                )
            )
        state.readiness_s = ready.elapsed_s
        console.print(f"ready: {ready.url} after {ready.elapsed_s:.1f} s")
        # Harness extras (requests the grader never sends): only outside pure official mode
        # unless asked; see docs/attribution.md.
        if cfg.mode == "official":
            ctx.provenance.server = not_taken()
        else:
            ctx.provenance.server = asyncio.run(take_fingerprint(cfg.url))
        with progress.live():
            asyncio.run(
                run_latency(
                    cfg,
                    tok,
                    state,
                    on_bucket=progress.on_bucket,
                    on_row=progress.on_row,
                    hook=recorder.bucket_hook,
                )
            )
        complete = True
    finally:
        if state.rows or complete:
            report = build_report(cfg, state, ctx.provenance, complete=complete)
            report.attribution = section_for(
                recorder.pairs, recorder.notes, scraped=scraping, choice=args.metrics
            )
            if complete and cfg.calibrate:
                from harness.latency.selftest import quick_calibration

                report.calibration = quick_calibration()
            report.save(folder)
            if complete:
                render_report(console, report, str(folder))
                for line in section_lines(report.attribution):
                    console.print(f"attribution: {line}", markup=False)
                if args.json and emit_json:
                    sys.stdout.write(
                        json.dumps(report.model_dump(exclude={"requests"}), indent=2) + "\n"
                    )
            else:
                print(
                    f"harness: partial latency report saved: {folder}/latency.json",
                    file=sys.stderr,
                )
    if any(b.n_ok == 0 for b in report.buckets()):
        return EXIT_TARGET
    return EXIT_OK
