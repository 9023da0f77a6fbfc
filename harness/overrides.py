"""The typed overrides records: a kind's options as one frozen dataclass.

An overrides record's fields are declared with :func:`harness.flags.option`; this
base turns the declarations into a command's flags (:meth:`Overrides.add_arguments`),
parses a command line into the record (:meth:`Overrides.from_args`), takes a gate
step's record from the gate's options (:meth:`Overrides.from_gate`) and renders a
record back as flags (:meth:`Overrides.argv`, what a report's provenance records;
it re-parses to the same record). ``None`` means "the profile's value": the kind's
config builder (``from_profile(profile, target, overrides)``) reads the profile for it.
Every option's help shows its default (tests/unit/test_cli_help.py).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import fields
from typing import Any, ClassVar, Self

from harness.flags import Flag, flag_of


def render_value(value: object) -> str:
    """A value as a command line spells it (re-parses to the same value)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _help(f: dataclasses.Field[Any], spec: Flag, required: bool = False) -> str:
    """The help text with its default (tests/unit/test_cli_help.py holds every flag to it);
    a required option's "(required)" is the help formatter's (harness/cli/__init__.py)."""
    if required or "default" in spec.help:
        return spec.help
    if isinstance(f.default, bool):  # a switch: not given by default
        return f"{spec.help} (default: off)"
    if f.default is None:
        return f"{spec.help} (default: none)"
    return f"{spec.help} (default: {render_value(f.default)})"


class Overrides:
    """Base of the typed overrides records (frozen dataclasses whose fields are :func:`option`)."""

    # the command this record belongs to (``harness latency``): for messages and docs
    COMMAND: ClassVar[str] = ""

    @classmethod
    def flags(cls) -> list[tuple[dataclasses.Field[Any], Flag]]:
        assert dataclasses.is_dataclass(cls), f"{cls.__name__} must be a dataclass"
        return [(f, spec) for f in fields(cls) if (spec := flag_of(f)) is not None]

    @classmethod
    def add_arguments(
        cls,
        p: argparse.ArgumentParser,
        *,
        only: Collection[str] | None = None,
        required: Collection[str] = (),
    ) -> None:
        """The record's flags on ``p``: all, or the fields named in ``only`` (a sub-command
        that takes some of them: ``vlm latency``); those in ``required`` must be given."""
        for f, spec in cls.flags():
            if only is not None and f.name not in only:
                continue
            if isinstance(f.default, bool):
                action = "store_false" if f.default else "store_true"
                p.add_argument(spec.name, dest=f.name, action=action, help=_help(f, spec))
                continue
            must = f.name in required
            add_valued(p, spec, f.name, f.default, _help(f, spec, must), required=must)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Self:
        """The record a parsed command line holds; an absent option keeps the field default."""
        given = {
            f.name: value
            for f, _ in cls.flags()
            if (value := getattr(args, f.name, None)) is not None
        }
        return cls(**given)

    @classmethod
    def from_gate(cls, options: Mapping[str, object]) -> Self:
        """The record of one gate step: every gate option this record has (by the gate's key)."""
        given: dict[str, object] = {}
        for f, spec in cls.flags():
            if spec.gate is None:
                continue
            value = options.get(gate_key(spec.gate.name), spec.gate.default)
            if value is not None:
                given[f.name] = value
        return cls(**given)

    def argv(self) -> list[str]:
        """The flags that re-create this record (what differs from the defaults)."""
        out: list[str] = []
        for f, spec in self.flags():
            value = getattr(self, f.name)
            if isinstance(value, bool):
                if value != f.default:
                    out.append(spec.name)
                continue
            if value is None or value == f.default:
                continue
            out += [spec.name, render_value(value)]
        return out


def add_valued(
    p: argparse.ArgumentParser,
    spec: Flag,
    dest: str,
    default: object,
    help: str,
    *,
    required: bool = False,
) -> None:
    """One option that takes a value, as ``spec`` declares it (a command's or the gate's)."""
    # argparse's type= takes no None
    typed: dict[str, Any] = {} if spec.type is None else {"type": spec.type}
    p.add_argument(
        spec.name,
        dest=dest,
        choices=spec.choices,
        metavar=spec.metavar,
        default=default,
        required=required,
        help=help,
        **typed,
    )


def gate_key(flag: str) -> str:
    """``--latency-mode`` → ``latency_mode``: the gate's argparse dest for an option."""
    return flag.removeprefix("--").replace("-", "_")
