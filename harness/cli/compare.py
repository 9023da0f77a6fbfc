"""``harness compare RUN_A RUN_B``: is B really faster / better than A, beyond noise?"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from harness.argtypes import non_negative_float
from harness.cli.common import add_json, make_console, print_json
from harness.compare.core import CompareConfig, compare_runs
from harness.compare.render import render
from harness.errors import EXIT_OK, HarnessError, UsageError
from harness.paired.stats import MIN_EFFECT_PCT
from harness.provenance import Provenance, redact_argv


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "compare", help="paired A/B verdict per bucket / benchmark / level, with CIs"
    )
    p.add_argument("run_a", metavar="RUN_A", help="the reference run folder (A)")
    p.add_argument("run_b", metavar="RUN_B", help="the run folder to judge against it (B)")
    p.add_argument(
        "--min-effect",
        type=non_negative_float,
        default=MIN_EFFECT_PCT,
        metavar="PCT",
        help="differences below PCT %% of A are within noise (default: %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: 0)")
    p.add_argument(
        "--no-save",
        action="store_true",
        help="do not write compare.json into RUN_B (report.html's compare section reads it)",
    )
    add_json(p)
    p.add_argument("--quiet", action="store_true", help="no console tables")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    a, b = Path(args.run_a), Path(args.run_b)
    if a.resolve() == b.resolve():
        raise UsageError("RUN_A and RUN_B are the same folder", hint="pass two different runs")
    cfg = CompareConfig(run_a=a, run_b=b, seed=args.seed, min_effect_pct=args.min_effect)
    prov = Provenance(command_line=redact_argv(list(getattr(args, "argv", []))), seed=args.seed)
    report = compare_runs(cfg, prov)
    report.provenance.profile = report.profile
    console = make_console(args)
    if not args.no_save:
        try:
            report.save(b, fix="pass --no-save to compare without writing it")
        except HarnessError as err:
            # the comparison itself stands; only report.html's section is lost
            console.print(f"[yellow]note:[/] {escape(err.one_line())}")
    render(console, report)
    if args.json:
        print_json(report)
    return EXIT_OK
