"""The root CLI: it only registers commands and maps errors to exit codes.

Each command lives in ``harness/cli/<name>.py`` with ``register(subparsers)``;
the command's work is done by the core module it calls (docs/architecture.md).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

from harness import __version__
from harness.cli import signals
from harness.errors import EXIT_INTERRUPTED, EXIT_OK, HarnessError, exit_code_for

# The commands that are not a measurement kind: name → one-line summary. Each measurement
# kind's command is built from the registry (harness/cli/kind_command.py), which is only
# imported when a kind's command or the whole list is asked for; only the invoked
# command's module is imported, so `harness simulate` never pays for lm-eval, docker or
# boto3 imports.
OTHER_COMMANDS: dict[str, str] = {
    "gate": "PASS / FAIL / INCOMPLETE verdict with reasons and risk flags",
    "submit": "register, upload (single / multipart, resumable), complete, submit",
    "portal": "a local emulator of the organiser's submission API (S3-backed)",
    "report": "the ledger of runs, and report.html with plots",
    "simulate": "an OpenAI-compatible server with exact timing and fault knobs",
    "data": "benchmark data and NLTK punkt_tab into a local folder for offline runs",
    "compare": "paired A/B verdict per bucket / benchmark / level, with CIs",
    "tune": "search serve settings for the best score under the quality gates (Optuna)",
    "demo": "the CPU reference server judged end to end (check → latency → quality → gate)",
}


def commands() -> dict[str, str]:
    """Every command → its one-line summary: the kinds' in registry order, then the others."""
    from harness.cli.kind_command import kind_commands

    return {**kind_commands(), **OTHER_COMMANDS}


def __getattr__(name: str) -> dict[str, str]:
    # ``COMMANDS`` is computed when asked for (it imports the registry)
    if name == "COMMANDS":
        return commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help shows its default: a concrete one is appended when the text does
    not say it; a flag off by default says "(default: off)"; a required one "(required)".
    An option whose default is None says in words what it falls back to
    (tests/unit/test_cli_help.py holds every command to this)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "{" in text:  # a profile's value quoted (harness/cli/help_defaults.py)
            from harness.cli.help_defaults import expand

            text = expand(text)
        if not action.option_strings or not text or "default" in text.lower():
            return text
        if action.required:
            return f"{text} (required)"
        if action.nargs == 0 and action.default in (False, None):
            return f"{text} (default: off)"
        if action.default is not None and action.default is not argparse.SUPPRESS:
            return f"{text} (default: %(default)s)"
        return text


_NO_VALUE = re.compile(r"argument (?:\S+/)?(--[\w-]+): expected one argument")


def _dash_value_hint(message: str, argv: Sequence[str]) -> str | None:
    """``--team -team``: argparse takes ``-team`` for a flag and says the value is missing;
    the value goes after ``=`` (``--team=-team``)."""
    m = _NO_VALUE.fullmatch(message)
    if m is None or m.group(1) not in argv:
        return None
    at = list(argv).index(m.group(1))
    value = argv[at + 1] if at + 1 < len(argv) else ""
    if not value.startswith("-") or value.startswith("--"):  # "--x": another flag, likely
        return None
    return f"a value that starts with '-' goes after '=': {m.group(1)}={value}"


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, argv: Sequence[str] = (), **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        self.argv = list(argv)  # the command line, for hints that quote it

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own usage errors: the usage, then one line naming what to read, exit 2.
        self.print_usage(sys.stderr)
        dash = _dash_value_hint(message, self.argv)
        hint = f" — {dash}" if dash else "" if " — " in message else f" — see {self.prog} --help"
        self.exit(2, f"harness: error: {message}{hint}\n")


def _invoked(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg
    return None


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = _Parser(
        argv=argv,
        prog="harness",
        description="Evaluation harness and submission gatekeeper for LLM inference competitions.",
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")

    class _CommandParser(_Parser):  # every command's parser knows the command line too
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, argv=argv, **kwargs)

    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    invoked = _invoked(argv)
    # another command's parser needs no kind: the registry stays unimported
    listed = OTHER_COMMANDS if invoked in OTHER_COMMANDS else commands()
    for name, summary in listed.items():
        if name != invoked:
            sub.add_parser(name, help=summary, add_help=False)
        elif name in OTHER_COMMANDS:
            importlib.import_module(f"harness.cli.{name}").register(sub)
        else:
            from harness.cli.kind_command import register

            register(sub, name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(args_list)
    args, unknown = parser.parse_known_args(args_list)
    if unknown:
        # argparse hands a subcommand's unknown flags up to the root, which would print the
        # root's usage: the command's own parser says it, with its own usage line
        _deepest(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    args.argv = ["harness", *args_list]
    try:
        with signals.sigterm_as_interrupt():
            rc = int(args.func(args))
    except KeyboardInterrupt:
        print(f"harness: {_stopped()}", file=sys.stderr)
        rc = EXIT_INTERRUPTED
    except HarnessError as err:
        print(f"harness: error: {err.one_line()}", file=sys.stderr)
        rc = exit_code_for(err)
    except BrokenPipeError:
        # a plain print to a reader that went away (``| head``): the output ends there, as
        # the reader asked; the work before it stands (consoles keep going: view/fitted.py)
        from harness.view.fitted import drop_closed_output

        drop_closed_output()
        rc = EXIT_OK
    if rc != 0:
        _drop_empty_run_folder(args)
    # A command that caught the interruption itself returns 130: SIGTERM makes it 143.
    return signals.EXIT_TERMINATED if rc == EXIT_INTERRUPTED and signals.terminated() else rc


def _deepest(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command the arguments chose: ``harness data fetch`` → fetch's."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and action.dest:
            chosen = getattr(args, action.dest, None)
            if isinstance(chosen, str) and chosen in action.choices:
                return _deepest(action.choices[chosen], args)
    return parser


def _drop_empty_run_folder(args: argparse.Namespace) -> None:
    """A command that stopped before writing anything leaves no empty run folder behind."""
    from harness.cli.common import NEW_FOLDER  # imported by every command already

    folder = getattr(args, NEW_FOLDER, None)
    if folder is not None:
        with contextlib.suppress(OSError):  # not empty (or gone): kept as it is
            folder.rmdir()


def _stopped() -> str:
    return "terminated (SIGTERM)" if signals.terminated() else "interrupted"
