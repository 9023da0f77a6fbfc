"""The root CLI: it only registers commands and maps errors to exit codes.

Each command lives in ``harness/cli/<name>.py`` with ``register(subparsers)``;
the command's work is done by the core module it calls (style.md, rule 1).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import sys
from collections.abc import Sequence

from harness import __version__
from harness.errors import EXIT_INTERRUPTED, HarnessError, exit_code_for

COMMANDS = (
    "check",
    "latency",
    "quality",
    "throughput",
    "gate",
    "package",
    "submit",
    "portal",
    "report",
    "simulate",
    "data",
    "demo",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own usage errors: one line plus the usage, exit 2.
        self.print_usage(sys.stderr)
        self.exit(2, f"harness: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="harness",
        description="Evaluation harness and submission gatekeeper for LLM inference competitions.",
    )
    parser.add_argument("--version", action="version", version=f"harness {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        modname = f"harness.cli.{name}"
        if importlib.util.find_spec(modname) is None:
            continue  # command not built yet in this checkout
        importlib.import_module(modname).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(args_list)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    args.argv = ["harness", *args_list]
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("harness: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except HarnessError as err:
        print(f"harness: error: {err.one_line()}", file=sys.stderr)
        return exit_code_for(err)
