"""Options shared by every command, and the run context they produce."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from harness.client.urls import http_base_url
from harness.errors import UsageError
from harness.profiles import DEFAULT_PROFILE, Profile, load_profile
from harness.runs import Provenance, new_run_folder, redact_argv


def add_common(p: argparse.ArgumentParser, *, run_folder: bool = True) -> None:
    p.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        help="competition profile: a name under tasks/profiles/ or a .toml path (default: %(default)s)",
    )
    if run_folder:
        p.add_argument("--out", metavar="DIR", help="run folder (default: reports/<time>-<name>/)")
        p.add_argument(
            "--name",
            help="a name for this run (folder name and ledger; default: the command's name)",
        )
        p.add_argument(
            "--note", default="", help="what changed since the last run (ledger; default: none)"
        )
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress output")


# The one readiness default of every command that waits for a server: the profile's
# [readiness] timeout_s, which is the graders' 10 minutes in every shipped profile.
READY_DEFAULT = "the profile's [readiness] timeout_s: 600, the graders' 10 minutes"


def http_url(text: str) -> str:
    """An http(s) base URL (argparse type) for every ``--url``-like flag (harness/client/urls.py)."""
    try:
        return http_base_url(text)
    except UsageError as err:
        raise argparse.ArgumentTypeError(err.one_line()) from None


def port_number(text: str) -> int:
    """A TCP port, 0 (any free one) to 65535 (argparse type)."""
    value = non_negative_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0-65535)")
    return value


LIMIT_HELP = (
    "documents per task: a fraction 0 < F <= 1 as the grader's QUALITY_LIMIT (the first"
    " ceil(F*n) of each task; 1 = all), or a whole count N > 1 (the first N, NON-OFFICIAL)"
)


def quality_limit(text: str) -> float:
    """``--limit`` (argparse type): a fraction in (0, 1], or a whole count above 1.

    1.5 is neither: refused rather than read as "all" (docs/quality.md, "--limit")."""
    value = positive_float(text)
    if value > 1 and not value.is_integer():
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither a fraction (0 < F <= 1) nor a whole count of documents"
        )
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def int_list(text: str) -> list[int]:
    """A comma list of positive integers (argparse type), e.g. ``1,2,64``."""
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected e.g. 1,64, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def byte_progress(console: Console) -> Progress:
    """A transient progress bar for byte streams (save, hash, upload): MB, MB/s, ETA."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        DownloadColumn(binary_units=False),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )


def make_console(args: argparse.Namespace) -> Console:
    """Human output: stdout normally, stderr when --json owns stdout; silent with --quiet."""
    json_mode = bool(getattr(args, "json", False))
    quiet = bool(getattr(args, "quiet", False))
    stream = sys.stderr if json_mode else sys.stdout
    # Logs and CI are not terminals: give tables room instead of rich's 80-column default.
    width = None if stream.isatty() else 120
    return Console(file=stream, quiet=quiet, highlight=False, width=width)


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
    )
    return RunContext(profile=profile, folder=folder, provenance=prov, console=make_console(args))
