"""``harness demo``: the CPU reference server judged end to end."""

from __future__ import annotations

import argparse

from harness.cli.common import add_common, make_console, port_number
from harness.demo import QUICK, DemoConfig, run_demo
from harness.gate.options import add_gate_options
from harness.profiles import load_profile
from harness.run_folder import new_run_folder


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo", help="the CPU reference server judged end to end (check → latency → quality → gate)"
    )
    add_gate_options(p, defaults=QUICK)  # the gate's declarations, the demo's defaults
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
        options={key: getattr(args, key) for key in QUICK},
        port=args.port,
        name=args.name or "demo",
        note=args.note,
        experiment=args.experiment,
    )
    return run_demo(cfg, make_console(args))
