"""``harness package --image NAME[:TAG]``: save, compress, inspect, judge."""

from __future__ import annotations

import argparse
import json
import sys

from harness.cli.common import add_common, start_run
from harness.errors import UsageError
from harness.image.config import PackageOverrides, from_profile
from harness.image.console import ConsoleHooks, render_with_path
from harness.image.kind import KIND
from harness.kinds.record import RunEnv
from harness.run_folder import make_folder
from harness.target import IMAGE, Target


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "package", help="docker save → image.tar.gz (parallel gzip) → inspect → judge"
    )
    p.add_argument(
        IMAGE,
        metavar="NAME[:TAG]",
        help="the image to save through the Docker Engine API (required: --image or --archive)",
    )
    PackageOverrides.add_arguments(p)
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    overrides = PackageOverrides.from_args(args)
    if bool(args.image) == bool(overrides.archive):
        raise UsageError(
            "give exactly one of --image or --archive",
            hint="e.g. harness package --image team/server:v1",
        )
    if overrides.archive is not None and not overrides.archive.is_file():
        raise UsageError(
            f"no such file: {overrides.archive}",
            hint="give --archive the image.tar.gz that `harness package --image` wrote",
        )
    ctx = start_run(args, "package")
    cfg = from_profile(ctx.profile, Target(folder=ctx.folder, image=args.image or ""), overrides)
    if overrides.output is not None:  # before the engine is asked anything
        make_folder(overrides.output.parent, "the folder of --output", "--output")
    hooks = ConsoleHooks(ctx.console, f"save {args.image or cfg.archive.name}")
    try:
        report = KIND.run(cfg, RunEnv(provenance=ctx.provenance, folder=ctx.folder, hooks=hooks))
    finally:
        hooks.close()
    if args.json:
        sys.stdout.write(json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
    render_with_path(ctx.console, report, str(ctx.folder))
    return KIND.exit_code(report)
