"""``harness check``: API conformance of every endpoint the profile names (docs/check.md).

What is special beside the kinds' one front end (harness/cli/kind_command.py): ``--list``,
and the checks planned before a run folder exists, so a bad selection leaves none behind.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from harness.cli.common import make_console
from harness.cli.front import SERVER_URL, Front, KindRun, Outcome, url_target
from harness.conformance.config import CheckOverrides, CheckPlan, from_profile
from harness.errors import EXIT_OK, UsageError
from harness.profiles import load_profile
from harness.target import Target

if TYPE_CHECKING:
    from harness.conformance.hooks import CheckHooks


def _flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--list", action="store_true", help="list the checks and exit")


def _plan(args: argparse.Namespace) -> CheckPlan:
    # the check's config names no folder: the core is given it
    target = Target(folder=Path(args.out or "."), url=args.url or "")
    return from_profile(load_profile(args.profile), target, CheckOverrides.from_args(args))


def _list(args: argparse.Namespace) -> int | None:
    plan = _plan(args)  # a bad selection or profile is said first, with or without --url
    if not args.list:
        return None
    console = make_console(args)
    for p in plan.planned:
        mark = "required" if p.name in plan.cfg.required else "        "
        title = p.spec.title.replace("N ", f"{p.param} ") if p.param else p.spec.title
        console.print(f"{p.name:24} {p.spec.group:12} {mark}  {title}")
    return EXIT_OK


def _selected(args: argparse.Namespace) -> None:
    if not _plan(args).planned:
        raise UsageError("no checks selected", hint="see `harness check --list`")


def _measure(run: KindRun, hooks: CheckHooks) -> Outcome:
    from harness.conformance.kind import KIND
    from harness.kinds.record import RunEnv

    report = KIND.measure(run.cfg, RunEnv(run.ctx.provenance, run.ctx.folder, hooks))

    def server(console: Console) -> None:
        if report.provenance.server is not None:
            console.print(f"server: {report.provenance.server.label()}", markup=False)

    return Outcome(report, more=server)


FRONT = Front(
    summary="API conformance of every endpoint the profile names",
    help="API conformance: routes, shapes, usage, thinking, streaming, load, bad input",
    target=url_target(f"{SERVER_URL} (required, except with --list)"),
    flags=_flags,
    early=_list,
    check=_selected,
    measure=_measure,
)
