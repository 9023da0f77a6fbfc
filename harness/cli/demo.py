"""``harness demo``: the CPU reference server judged end to end."""

from __future__ import annotations

import argparse

from harness.cli.common import (
    add_common,
    make_console,
    non_negative_int,
    port_number,
    positive_int,
)
from harness.demo import DemoConfig, run_demo
from harness.profiles import load_profile
from harness.run_folder import new_run_folder


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo", help="the CPU reference server judged end to end (check → latency → quality → gate)"
    )
    p.add_argument(
        "--runs",
        type=positive_int,
        default=3,
        help="latency: timed requests per bucket (default 3)",
    )
    p.add_argument(
        "--warmup", type=non_negative_int, default=1, help="latency: warm-up requests (default 1)"
    )
    p.add_argument(
        "--latency-mode",
        choices=("official", "strict", "both"),
        default="official",
        help="latency: the grader's procedure, harness's strict one, or both (default: %(default)s)",
    )
    p.add_argument("--buckets", help="latency: comma-separated buckets (default: all)")
    p.add_argument(
        "--max-gen-toks",
        type=positive_int,
        default=24,
        help="quality: NON-OFFICIAL cap (default 24)",
    )
    p.add_argument(
        "--port", type=port_number, default=0, help="reference server port (default: a free one)"
    )
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)  # a bad profile leaves no empty run folder behind
    folder = new_run_folder(args.out, args.name or "demo", "demo")
    cfg = DemoConfig(
        folder=folder,
        profile=profile,
        runs=args.runs,
        warmup=args.warmup,
        latency_mode=args.latency_mode,
        buckets=args.buckets,
        max_gen_toks=args.max_gen_toks,
        port=args.port,
        name=args.name or "demo",
        note=args.note,
        experiment=args.experiment,
    )
    return run_demo(cfg, make_console(args))
