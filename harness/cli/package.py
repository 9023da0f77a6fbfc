"""``harness package --image NAME[:TAG]``: save, compress, inspect, judge.

Special beside the kinds' one front end (harness/cli/kind_command.py): exactly one of
``--image`` and ``--archive``, and ``--output``'s folder made before the engine is asked
anything.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from harness.cli.front import Front, KindRun, Outcome, image_target
from harness.errors import UsageError
from harness.image.config import PackageOverrides

if TYPE_CHECKING:
    from harness.image.hooks import PackageHooks


def _check(args: argparse.Namespace) -> None:
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


def _hooks(run: KindRun) -> object:
    from harness.image.console import ConsoleHooks

    return ConsoleHooks(run.ctx.console, f"save {run.args.image or run.cfg.archive.name}")


def _measure(run: KindRun, hooks: PackageHooks) -> Outcome:
    from harness.image.kind import KIND
    from harness.kinds.record import RunEnv
    from harness.run_folder import make_folder

    output = PackageOverrides.from_args(run.args).output
    if output is not None:  # before the engine is asked anything
        make_folder(output.parent, "the folder of --output", "--output")
    return Outcome(KIND.measure(run.cfg, RunEnv(run.ctx.provenance, run.ctx.folder, hooks)))


FRONT = Front(
    summary="docker save → image.tar.gz, inspected against the container contract",
    help="docker save → image.tar.gz (parallel gzip) → inspect → judge",
    target=image_target(
        "the image to save through the Docker Engine API (required: --image or --archive)"
    ),
    check=_check,
    hooks=_hooks,
    measure=_measure,
)
