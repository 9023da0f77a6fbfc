"""What a measurement kind's command does besides the one skeleton every kind shares.

Every kind of the registry (``harness/registry/``) is a command built by one
runner (``harness/cli/kind_command.py``): its target flag, its overrides record's flags,
the common flags; then parse → config (the kind's ``from_profile``) → its core → render →
``--json`` → exit code (the kind's ``exit_code``). A :class:`Front` holds only what is
special about one command (``--list``, ``--self-test``, ``--repeats``, a resume hint…),
as small hooks; the module ``harness/cli/<command>.py`` exports it as ``FRONT``. A kind
without such a module gets the skeleton as it is.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from rich.console import Console

from harness.cli.common import RunContext, http_url
from harness.profiles import DEFAULT_PROFILE
from harness.report_base import Report
from harness.target import IMAGE, URL


@dataclass(frozen=True)
class TargetFlag:
    """The flag naming what the command measures (``--url`` or ``--image``)."""

    flag: str
    help: str
    metavar: str
    type: Callable[[str], Any] | None = None
    # argparse refuses a command line without it ("the following arguments are required")
    required: bool = False
    # else the runner says "--url is required" (exit 2) once the early hooks had their turn
    checked: bool = False

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--")


def url_target(help: str, *, required: bool = False, checked: bool = True) -> TargetFlag:
    return TargetFlag(URL, help, "URL", http_url, required=required, checked=checked)


SERVER_URL = "server base URL, e.g. http://127.0.0.1:8080"
SERVER = url_target(f"{SERVER_URL} (required)")


def image_target(help: str) -> TargetFlag:
    return TargetFlag(IMAGE, help, "NAME[:TAG]")


@dataclass
class Outcome:
    """What the core returned, as the command shows it."""

    report: Report
    heading: str | None = None  # printed before the report ("pooled over 3 repeats")
    more: Callable[[Console], None] | None = None  # printed after it
    # --json: documents beside the report, which then sits under the kind's name
    beside: Mapping[str, BaseModel] = field(default_factory=dict)


@dataclass
class KindRun:
    """One invocation on its way: the parsed flags, the run context, the config."""

    args: argparse.Namespace
    ctx: RunContext
    cfg: Any
    # what the ``check`` hook found before the run folder was made (latency: a partial run)
    prepared: Any = None


@dataclass(frozen=True)
class Front:
    summary: str  # the command's line in ``harness --help``
    help: str = ""  # its parser's help (default: the summary)
    description: str | None = None
    target: TargetFlag | None = SERVER
    profile: str = DEFAULT_PROFILE  # the --profile default (vlm: its own contest's)
    run_name: str = ""  # the run folder's and ledger's name (default: the kind's)
    # the overrides record's fields this command takes (None: all) and those it must be given
    only: tuple[str, ...] | None = None
    required: tuple[str, ...] = ()
    # flags of this command only (--repeats, --list), after the overrides record's
    flags: Callable[[argparse.ArgumentParser], None] | None = None
    # answered before anything else, without a run folder (--list, --self-test): an exit code
    early: Callable[[argparse.Namespace], int | None] | None = None
    # usage errors before the run folder is made; what it returns is the run's ``prepared``
    check: Callable[[argparse.Namespace], Any] | None = None
    # the config (default: the kind's from_profile over its overrides record)
    config: Callable[[argparse.Namespace, RunContext], Any] | None = None
    # the console hooks (default: the kind's console hooks)
    hooks: Callable[[KindRun], Any] | None = None
    # the measuring (default: the kind's core)
    measure: Callable[[KindRun, Any], Outcome] | None = None
    # after a failed run: one stderr line saying why (the report is saved)
    failure_line: Callable[[Any, int], str | None] | None = None
    # fields --json leaves out (per-request records: in the saved report)
    json_exclude: frozenset[str] = frozenset()
    # sub-commands (``vlm run | import | latency``): name → its own front; the kind's
    # ``command`` names the one its record runs
    subcommands: Mapping[str, Front] = field(default_factory=dict)
    # positional arguments before the flags: (name, metavar, help)
    positionals: tuple[tuple[str, str, str], ...] = ()
    # the kind whose report this command writes, for its rendering and exit code
    # (``vlm audit`` writes the audit's ``audit.json``); "": the command's own kind
    report_kind: str = ""
