"""The one front end of every measurement kind: its command, built from the registry.

``harness <kind>`` for each kind of ``harness/registry/``: the target flag,
the kind's overrides record (``add_arguments``), the command's own flags and the
common ones; then one path: early answers (``--list``, ``--self-test``) → usage
checks (before a run folder exists) → run folder and provenance → config (the kind's
``from_profile``) → console hooks → the core → render → ``--json`` (one spelling) →
the kind's exit code, with one stderr line when the target failed. What is special
about a command is its :class:`~harness.cli.front.Front` (``harness/cli/<command>.py``:
``FRONT``); a kind without one gets this skeleton as it is.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from typing import Any

from harness.cli.common import RunContext, add_common, print_json, start_run
from harness.cli.front import Front, KindRun, Outcome
from harness.errors import UsageError
from harness.kinds.record import Closable, RunEnv
from harness.registry import KINDS, AnyKind, kind_named
from harness.target import Target

EXAMPLE_URL = "http://127.0.0.1:8080"


def front_of(kind: AnyKind) -> Front:
    """The kind's front (``harness/cli/<command>.py``: ``FRONT``), or the bare skeleton."""
    modname = f"harness.cli.{kind.command[0]}"
    front = None
    if importlib.util.find_spec(modname) is not None:
        front = getattr(importlib.import_module(modname), "FRONT", None)
    return front if isinstance(front, Front) else Front(summary=f"measure {kind.name}")


def kind_commands() -> dict[str, str]:
    """Each kind's command → its one-line summary, in registry order."""
    return {kind.command[0]: front_of(kind).summary for kind in KINDS}


def register(sub: argparse._SubParsersAction[Any], name: str) -> None:
    """The command ``name`` of the kind whose record names it."""
    (kind,) = [k for k in KINDS if k.command[0] == name]
    front = front_of(kind)
    if not front.subcommands:
        _add_command(sub, (name,), kind, front)
        return
    p = sub.add_parser(name, help=front.help or front.summary, description=front.description)
    nested = p.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND", required=True)
    for subname, subfront in front.subcommands.items():
        _add_command(nested, (name, subname), kind, subfront)


def _add_command(
    sub: argparse._SubParsersAction[Any],
    command: tuple[str, ...],
    kind: AnyKind,
    front: Front,
) -> None:
    extra: dict[str, Any] = {} if front.description is None else {"description": front.description}
    p = sub.add_parser(command[-1], help=front.help or front.summary, **extra)
    for dest, metavar, text in front.positionals:
        p.add_argument(dest, metavar=metavar, help=text)
    t = front.target
    if t is not None:
        typed: dict[str, Any] = {} if t.type is None else {"type": t.type}
        p.add_argument(t.flag, metavar=t.metavar, required=t.required, help=t.help, **typed)
    kind.overrides.add_arguments(p, only=front.only, required=front.required)
    if front.flags is not None:
        front.flags(p)
    add_common(p, profile=front.profile)
    p.set_defaults(func=lambda args: run(args, command, kind, front))


def kind_config(kind: AnyKind, args: argparse.Namespace, ctx: RunContext) -> Any:
    """The kind's config: the profile's values, then the flags' overrides record."""
    target = Target(
        folder=ctx.folder,
        url=getattr(args, "url", None) or "",
        image=getattr(args, "image", None) or "",
    )
    return kind.from_profile(ctx.profile, target, kind.overrides.from_args(args))


def run(args: argparse.Namespace, command: tuple[str, ...], kind: AnyKind, front: Front) -> int:
    if front.early is not None and (rc := front.early(args)) is not None:
        return rc
    t = front.target
    if t is not None and t.checked and not getattr(args, t.dest, None):
        example = f"{t.flag} {EXAMPLE_URL}" if t.type is not None else t.flag
        raise UsageError(
            f"{t.flag} is required", hint=f"e.g. harness {' '.join(command)} {example}"
        )
    prepared = front.check(args) if front.check is not None else None
    url = getattr(args, "url", None) if t is not None and t.type is not None else None
    ctx = start_run(args, front.run_name or kind.name, url=url)
    cfg = front.config(args, ctx) if front.config is not None else kind_config(kind, args, ctx)
    job = KindRun(args=args, ctx=ctx, cfg=cfg, prepared=prepared)
    hooks = front.hooks(job) if front.hooks is not None else _console_hooks(kind, ctx)
    try:
        if front.measure is not None:
            outcome = front.measure(job, hooks)
        else:
            env = RunEnv(provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
            outcome = Outcome(kind.measure(cfg, env))
    finally:
        if isinstance(hooks, Closable):
            hooks.close()
    shown = kind_named(front.report_kind) if front.report_kind else kind
    _render(shown, ctx, outcome)
    if args.json:
        print_json(json_document(shown, front, outcome))
    rc = shown.exit_code_of(outcome.report)
    line = front.failure_line(outcome.report, rc) if front.failure_line is not None else None
    if line:  # the report is saved; stderr says why in one line
        print(f"harness: error: {line}", file=sys.stderr)
    return rc


def _console_hooks(kind: AnyKind, ctx: RunContext) -> Any:
    if kind.console is None:
        return kind.no_hooks
    return kind.console.make_hooks(ctx.console, ctx.profile.name)


def _render(kind: AnyKind, ctx: RunContext, outcome: Outcome) -> None:
    if outcome.heading:
        ctx.console.print(outcome.heading)
    if kind.console is not None:
        kind.console.show(ctx.console, outcome.report, str(ctx.folder))
    if outcome.more is not None:
        outcome.more(ctx.console)


def json_document(kind: AnyKind, front: Front, outcome: Outcome) -> Any:
    """``--json``'s one document: the report (less ``json_exclude``), or with documents
    beside it (``--repeats``' spread) an object holding it under the kind's name."""
    exclude = set(front.json_exclude) or None
    doc = outcome.report.model_dump(mode="json", exclude=exclude)
    if not outcome.beside:
        return doc
    return {kind.name: doc, **{k: v.model_dump(mode="json") for k, v in outcome.beside.items()}}
