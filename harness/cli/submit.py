"""``harness submit image.tar.gz --team TEAM``: resumable upload to the organiser, then submit.

Parse → config (harness/submit/config.py: ``from_profile``) → the core
(harness/submit/core.py: ``run_submit``) → render (harness/submit/console.py) → ``--json``
→ exit code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.common import add_common, print_json, start_run
from harness.submit.config import SubmitOverrides, from_profile


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "submit", help="upload image.tar.gz to the organiser (resumable) and submit it"
    )
    p.add_argument("archive", metavar="image.tar.gz", help="the archive `harness package` wrote")
    SubmitOverrides.add_arguments(p)
    add_common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.gate.records import gate_records
    from harness.submit.console import ConsoleProgress, render, stopped_note
    from harness.submit.core import exit_code, run_submit

    ctx = start_run(args, "submit")
    warn = lambda msg: ctx.console.print(f"[yellow]warning:[/] {msg}")  # noqa: E731
    overrides = SubmitOverrides.from_args(args)
    cfg = from_profile(
        ctx.profile, Path(args.archive), overrides, gate_records=gate_records, warn=warn
    )
    progress = ConsoleProgress(ctx.console, cfg.archive)
    try:
        report = run_submit(cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=progress.hooks)
    except KeyboardInterrupt:
        progress.close()
        argv = list(getattr(args, "argv", ["harness", "submit"]))
        print(f"harness: {stopped_note(cfg, ctx.folder, argv)}", file=sys.stderr)
        raise
    finally:
        progress.close()
    if args.json:
        print_json(report.model_dump(mode="json"))
    render(ctx.console, report, ctx.folder)
    return exit_code(report)
