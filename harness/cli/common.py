"""Options shared by every command, and the run context they produce."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from harness.argtypes import http_url as http_url
from harness.argtypes import non_negative_int as non_negative_int
from harness.argtypes import port_number as port_number
from harness.argtypes import positive_float as positive_float
from harness.argtypes import positive_int as positive_int
from harness.console_hooks import byte_progress as byte_progress
from harness.profiles import DEFAULT_PROFILE, Profile, load_profile
from harness.provenance import Provenance, redact_argv
from harness.report_base import Report
from harness.run_folder import new_run_folder
from harness.target import EXPERIMENT, NAME, NOTE, OUT, PROFILE
from harness.view.fitted import console_for


def add_common(
    p: argparse.ArgumentParser, *, run_folder: bool = True, profile: str = DEFAULT_PROFILE
) -> None:
    # None when not given: load_profile reads the default; `gate RUN_DIR` tells the two apart.
    # A command whose contest is another one (vlm: aicas-vlm) sets its own default.
    p.add_argument(
        PROFILE,
        help="competition profile: a name under tasks/profiles/ or a .toml path "
        f"(default: {profile}; gate RUN_DIR: the folder's)",
    )
    if profile != DEFAULT_PROFILE:
        p.set_defaults(profile=profile)
    if run_folder:
        p.add_argument(OUT, metavar="DIR", help="run folder (default: reports/<time>-<name>/)")
        p.add_argument(
            NAME,
            help="a name for this run (folder name and ledger; default: the command's name)",
        )
        p.add_argument(
            NOTE, default="", help="what changed since the last run (ledger; default: none)"
        )
        p.add_argument(
            EXPERIMENT,
            metavar="NAME",
            help="the ledger group this run belongs to: its best and frontier compare only "
            "runs of one experiment (default: grouped by profile and server)",
        )
    add_json(p)
    p.add_argument("--quiet", action="store_true", help="no progress output")


JSON_HELP = "machine-readable JSON on stdout"


def add_json(p: argparse.ArgumentParser, help: str = JSON_HELP) -> None:
    """``--json``, declared here for every command (``print_json`` writes it; ``make_console``
    then sends the human output to stderr)."""
    p.add_argument("--json", action="store_true", help=help)


def int_list(text: str) -> list[int]:
    """A comma list of positive integers (argparse type), e.g. ``1,2,64``."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected e.g. 1,64, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def print_json(document: Report | object) -> None:
    """``--json``: the one writer of every command's machine output (stdout, one document,
    indented). A saved report is written as it is saved (``Report.to_json``: what ``gate``,
    ``compare`` and ``tune`` print is their file's bytes); any other document (a report's
    dump less its per-request records, a ledger) through ``json.dumps``."""
    text = document.to_json() if isinstance(document, Report) else json.dumps(document, indent=2)
    sys.stdout.write(text + "\n")


def make_console(args: argparse.Namespace) -> Console:
    """Human output: stdout normally, stderr when --json owns stdout; silent with --quiet."""
    json_mode = bool(getattr(args, "json", False))
    quiet = bool(getattr(args, "quiet", False))
    stream = sys.stderr if json_mode else sys.stdout
    # COLUMNS is honoured; a pipe or a log gets tables as wide as their cells (view/fitted.py).
    return console_for(stream, quiet=quiet)


@dataclass
class RunContext:
    profile: Profile
    folder: Path
    provenance: Provenance
    console: Console


NEW_FOLDER = "_new_run_folder"  # the args attribute naming a folder this run created


def start_run(args: argparse.Namespace, command: str, *, url: str | None = None) -> RunContext:
    profile = load_profile(args.profile)
    out = getattr(args, "out", None)
    existed = out is not None and Path(out).exists()
    folder = new_run_folder(out, getattr(args, "name", None), command)
    if not existed:
        # main() removes it again if the command fails before writing anything into it
        setattr(args, NEW_FOLDER, folder)
    prov = Provenance(
        profile=profile.name,
        command_line=redact_argv(list(getattr(args, "argv", []))),
        url=url,
        name=getattr(args, "name", None),
        note=getattr(args, "note", "") or "",
        experiment=getattr(args, "experiment", None),
    )
    return RunContext(profile=profile, folder=folder, provenance=prov, console=make_console(args))
