"""``harness gate``: PASS / FAIL / INCOMPLETE over a run folder, a live server, or an image."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path

from rich.console import Console

from harness.cli.common import (
    add_common,
    make_console,
    non_negative_int,
    positive_float,
    positive_int,
)
from harness.errors import EXIT_FAIL, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK, UsageError
from harness.gate.judge import judge_folder
from harness.gate.orchestrate import GatePlan, run_steps
from harness.gate.render import render_gate
from harness.gate.report import Verdict
from harness.profiles import Profile, load_profile
from harness.runs import Provenance, new_run_folder, redact_argv

EXIT_BY_VERDICT = {
    Verdict.PASS: EXIT_OK,
    Verdict.FAIL: EXIT_FAIL,
    Verdict.INCOMPLETE: EXIT_INCOMPLETE,
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("gate", help="PASS / FAIL / INCOMPLETE verdict with reasons and risk flags")
    p.add_argument("run_dir", nargs="?", help="a run folder to judge (reads its reports)")
    p.add_argument(
        "--url",
        help="measure this server (check → latency → quality) into a new run folder, then judge",
    )
    p.add_argument(
        "--image", help="run this image offline, measure it, and judge it with the package rules"
    )
    p.add_argument("--strict", action="store_true", help="risk flags fail the gate too")
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="measure latency and quality even if a required check failed",
    )
    p.add_argument("--runs", type=positive_int, help="latency: timed requests per bucket")
    p.add_argument("--warmup", type=non_negative_int, help="latency: warm-up requests per bucket")
    p.add_argument("--buckets", help="latency: comma-separated buckets")
    p.add_argument("--latency-mode", choices=("official", "strict", "both"), default="both")
    p.add_argument(
        "--limit", type=positive_float, help="quality: the grader's QUALITY_LIMIT (default 0.1)"
    )
    p.add_argument("--data-dir", help="quality: benchmark data folder")
    p.add_argument("--max-gen-toks", type=positive_int, help="quality: NON-OFFICIAL generation cap")
    p.add_argument("--quality-only", help="quality: comma-separated benchmarks")
    p.add_argument(
        "--tokenizer",
        help="check and latency: the served model's tokenizer for token counts (default: profile's)",
    )
    p.add_argument(
        "--ready-timeout", type=positive_float, help="readiness wait in s (default: profile, 600)"
    )
    p.add_argument("--docker-host", help="--image: the Docker API socket (default: DOCKER_HOST)")
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    modes = [m for m in (args.run_dir, args.url, args.image) if m]
    if len(modes) != 1:
        raise UsageError(
            "give exactly one of RUN_DIR, --url or --image",
            hint="e.g. harness gate reports/2026…-latency",
        )
    profile = load_profile(args.profile)
    console = make_console(args)
    prov = Provenance(
        profile=profile.name,
        command_line=redact_argv(list(getattr(args, "argv", []))),
        url=args.url,
    )
    rc = EXIT_OK
    image = False
    if args.run_dir:
        folder = Path(args.run_dir)
        if not folder.is_dir():
            raise UsageError(
                f"{folder} is not a run folder", hint="pass a folder under reports/ or use --url"
            )
    else:
        folder = new_run_folder(args.out, args.name, "gate")
        plan = _plan(args, folder, profile)
        # with --json, stdout carries only the verdict: the steps' tables go to stderr
        out = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
        with out:
            if args.url:
                rc = _measure(plan, console)
            else:
                image = True
                rc = _measure_image(args, plan, console)
    report = judge_folder(folder, profile, prov, strict=args.strict, image=image)
    report.save(folder)
    _record(folder, args)
    render_gate(console, report, str(folder))
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    if rc == EXIT_INTERRUPTED:
        return rc
    if rc and report.verdict is not Verdict.FAIL:
        return rc
    return EXIT_BY_VERDICT[report.verdict]


def _plan(args: argparse.Namespace, folder: Path, profile: Profile) -> GatePlan:
    return GatePlan(
        url=args.url or "",
        folder=folder,
        profile=profile,
        latency_mode=args.latency_mode,
        runs=args.runs,
        warmup=args.warmup,
        buckets=args.buckets,
        limit=args.limit,
        data_dir=args.data_dir,
        max_gen_toks=args.max_gen_toks,
        tokenizer=args.tokenizer,
        ready_timeout=args.ready_timeout,
        quality_only=args.quality_only,
        quiet=args.quiet,
        keep_going=args.keep_going,
    )


def _measure(plan: GatePlan, console: Console) -> int:
    from harness.cli import main as harness_main

    return run_steps(plan, harness_main, console.print)


def _measure_image(args: argparse.Namespace, plan: GatePlan, console: Console) -> int:
    """package (the real command) → run the image with no route out → measure it like --url."""
    from harness.cli import main as harness_main
    from harness.image.engine import connect
    from harness.image.run import running_image

    pkg = ["package", "--image", args.image, "--profile", args.profile, "--out", str(plan.folder)]
    if args.docker_host:
        pkg += ["--docker-host", args.docker_host]
    console.print("[bold]gate ▸ package[/]")
    rc = harness_main(pkg)
    if rc == EXIT_INTERRUPTED:
        return rc
    from harness.image.preflight import platform_failure

    if (wrong := platform_failure(plan.folder)) is not None:
        console.print(f"[bold]gate ▸ not run[/]: the image is for {wrong.split(':')[0]}")
        return rc  # package.json carries the FAIL reason; running it would only time out
    client = connect(args.docker_host)
    ready = plan.profile.readiness

    async def start_and_measure() -> int:
        async with running_image(
            client,
            args.image,
            port=plan.profile.server.port,
            ready_path=plan.profile.server.ready_path,
            interval_s=ready.poll_interval_s,
            timeout_s=args.ready_timeout or ready.timeout_s,
        ) as img:
            console.print(
                f"image ready at {img.url} after {img.ready_s:.1f} s (no route to the internet)"
            )
            plan.url = img.url
            return await asyncio.to_thread(run_steps, plan, harness_main, console.print)

    return asyncio.run(start_and_measure())


def _record(folder: Path, args: argparse.Namespace) -> None:
    from harness.report.ledger import record_run

    record_run(folder, args.name, args.note)
