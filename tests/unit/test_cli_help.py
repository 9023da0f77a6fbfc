"""Help a newcomer can trust: every option of every command says what it does and its default.

Walks every (sub)parser of the real CLI (harness/cli), each command registered as
when it is invoked. An option's expanded help must exist and show its default
("default" or "required" in the text: an option without a default says so,
"(default: off)", "(required)"). URL options take the one URL check, ports the
port check, and metavars say what the value is (a path, a rate). Failures name the
command and the option, so a new flag that lacks them says where.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from harness.cli import COMMANDS, build_parser
from harness.cli.common import http_url, port_number

PATH_METAVARS = {"DIR", "FILE", "PATH", "RUN", "RUN_DIR", "image.tar.gz"}
PATHISH = {"out", "output", "archive", "html", "records", "python"}


def _subparsers(parser: argparse.ArgumentParser) -> Iterator[argparse._SubParsersAction]:  # type: ignore[type-arg]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield action


def commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(``harness NAME [SUB]``, its parser) for every command and sub-command."""
    for name in COMMANDS:
        root = build_parser([name])
        (sub,) = _subparsers(root)
        todo = [(f"harness {name}", sub.choices[name])]
        while todo:
            label, parser = todo.pop()
            yield label, parser
            for nested in _subparsers(parser):
                todo += [(f"{label} {n}", p) for n, p in nested.choices.items()]


def _options() -> Iterator[tuple[str, str, argparse.Action, str]]:
    for label, parser in commands():
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            flag = action.option_strings[-1] if action.option_strings else action.dest
            text = ""
            if action.help and action.help != argparse.SUPPRESS:
                text = formatter._expand_help(action)
            yield label, flag, action, text


def test_every_command_is_reachable() -> None:
    labels = {label for label, _ in commands()}
    assert {"harness vlm import", "harness data fetch", "harness data prepare"} <= labels
    assert {f"harness {name}" for name in COMMANDS} <= labels


def test_every_option_has_help_that_shows_its_default() -> None:
    missing = []
    for label, flag, action, text in _options():
        if not text:
            missing.append(f"{label} {flag}: no help text")
        elif action.option_strings and not ("default" in text.lower() or "required" in text):
            missing.append(f"{label} {flag}: the help does not show the default ({text!r})")
    assert not missing, "\n".join(missing)


def test_urls_and_ports_are_checked_in_one_place() -> None:
    wrong = []
    for label, flag, action, _ in _options():
        urlish = action.dest == "url" or action.dest.endswith(("_url", "_endpoint"))
        if urlish and action.type is not http_url:
            wrong.append(f"{label} {flag}: not checked by http_url")
        if action.dest == "port" and action.type is not port_number:
            wrong.append(f"{label} {flag}: not checked by port_number")
    assert not wrong, "\n".join(wrong)


def test_metavars_say_paths_and_rates() -> None:
    wrong = []
    for label, flag, action, _ in _options():
        if not action.option_strings or action.nargs == 0:
            continue
        metavar = action.metavar or action.dest.upper()
        pathish = action.dest in PATHISH or action.dest.endswith(
            ("_dir", "_file", "_path", "_data")
        )
        if pathish and metavar not in PATH_METAVARS:
            wrong.append(f"{label} {flag}: a path shown as {metavar}")
        if action.dest.endswith("_rate") and metavar != "RATE":
            wrong.append(f"{label} {flag}: a rate shown as {metavar}")
    assert not wrong, "\n".join(wrong)
