"""``harness gate``: PASS / FAIL / INCOMPLETE over a run folder, a live server, or an image."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from harness.cli.common import (
    add_common,
    make_console,
    non_negative_int,
    positive_float,
    positive_int,
)
from harness.errors import EXIT_OK, UsageError
from harness.gate.console import ConsoleGateHooks
from harness.gate.image import measure_image
from harness.gate.orchestrate import GatePlan, conclude, exit_code, run_steps
from harness.gate.render import render_gate
from harness.profiles import Profile, load_profile
from harness.runs import Provenance, new_run_folder, redact_argv


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
    p.add_argument(
        "--until-ci",
        type=positive_float,
        metavar="PCT",
        help="latency: stop each bucket once its median's 95 %% interval is within ±PCT %% "
        "(an estimate, flagged non-official; default: off, every run)",
    )
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
        hooks = ConsoleGateHooks(console, profile=profile.name, folder=str(folder))
        # with --json, stdout carries only the verdict: the steps' tables go to stderr
        out = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
        with out:
            if args.url:
                rc = run_steps(plan, hooks)
            else:
                image = True
                rc = measure_image(args.image, plan, hooks, docker_host=args.docker_host)
    report = conclude(
        folder, profile, prov, strict=args.strict, image=image, name=args.name, note=args.note
    )
    render_gate(console, report, str(folder))
    if args.json:
        sys.stdout.write(report.to_json() + "\n")
    return exit_code(report, rc)


def _plan(args: argparse.Namespace, folder: Path, profile: Profile) -> GatePlan:
    return GatePlan(
        url=args.url or "",
        folder=folder,
        profile=profile,
        latency_mode=args.latency_mode,
        runs=args.runs,
        warmup=args.warmup,
        buckets=args.buckets,
        until_ci=args.until_ci,
        limit=args.limit,
        data_dir=Path(args.data_dir) if args.data_dir else None,
        max_gen_toks=args.max_gen_toks,
        tokenizer=args.tokenizer,
        ready_timeout=args.ready_timeout,
        quality_only=args.quality_only,
        keep_going=args.keep_going,
        name=args.name,
        note=args.note,
    )
