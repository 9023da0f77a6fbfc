"""The gate's step options, taken from the kinds' overrides records.

A field of a kind's overrides record declared with ``gate=`` (harness/flags.py)
is a gate option: one flag for every kind that declares it (``--tokenizer``
reaches check, latency and throughput; ``--ready-timeout`` every server step),
so every option the gate takes reaches every step that has it. The gate keeps
its options as a mapping (key → value, None: each step's own default); each
step's overrides record is built from it (``Overrides.from_gate``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from harness.flags import Flag
from harness.overrides import add_valued, gate_key, render_value
from harness.registry import KINDS

_DEFAULT_TEXT = re.compile(r"\s*\(default:[^)]*\)\s*$")


@dataclass(frozen=True)
class GateOption:
    key: str  # the mapping key and argparse dest: latency_mode
    default: object  # the gate's own default (None: each step's)
    kinds: tuple[str, ...]  # the steps it reaches
    spec: Flag  # the option as the gate spells it (its name, help, type, choices)
    own_help: bool = False  # the help is the gate's words (GateFlag.help), not a step's
    # a bool field: a flag without a value (``--decide``) that flips the field's default,
    # which ``flipped`` holds; absent, the option is None (the step's own default)
    switch: bool = False
    flipped: bool = False

    @property
    def flag(self) -> str:  # --latency-mode
        return self.spec.name


def gate_options() -> list[GateOption]:
    """Every gate option, in registry order of the first kind that declares it."""
    found: dict[str, GateOption] = {}
    for kind in KINDS:
        if kind.gate_step is None:
            continue
        for f, spec in kind.overrides.flags():
            if spec.gate is None:
                continue
            switch = isinstance(f.default, bool)
            seen = found.get(spec.gate.name)
            if seen is not None:
                found[spec.gate.name] = replace(seen, kinds=(*seen.kinds, kind.name))
                continue
            found[spec.gate.name] = GateOption(
                key=gate_key(spec.gate.name),
                default=spec.gate.default,
                kinds=(kind.name,),
                spec=replace(spec, name=spec.gate.name, help=spec.gate.help or spec.help),
                own_help=bool(spec.gate.help),
                switch=switch,
                flipped=switch and not f.default,
            )
    return list(found.values())


def _help(o: GateOption, own_default: bool = False) -> str:
    text = o.spec.help
    if own_default and o.default is not None:  # another command's default (harness demo's)
        text = _DEFAULT_TEXT.sub("", text)
    if len(o.kinds) > 1 and not (o.own_help and "default" in text):
        text = _DEFAULT_TEXT.sub("", text) + " (default: each step's own)"
    if o.default is not None and "default" not in text:
        text += f" (default: {render_value(o.default)})"
    return f"{', '.join(o.kinds)}: {text}"


def add_gate_options(
    p: argparse.ArgumentParser, defaults: Mapping[str, object] | None = None
) -> None:
    """Every gate option on ``p``; or, given ``defaults`` (key → value), only those options,
    each with its default there (``harness demo`` offers a few, with quick defaults)."""
    for o in gate_options():
        own = defaults is not None
        if defaults is not None:
            if o.key not in defaults:
                continue
            o = replace(o, default=defaults[o.key])
        if o.switch:
            action = "store_true" if o.flipped else "store_false"
            p.add_argument(o.flag, dest=o.key, action=action, default=None, help=_help(o, own))
            continue
        add_valued(p, o.spec, o.key, o.default, _help(o, own))


def options_from_args(args: argparse.Namespace) -> dict[str, object]:
    return {o.key: getattr(args, o.key, None) for o in gate_options()}


def options_argv(options: Mapping[str, object]) -> list[str]:
    """The gate flags that re-create ``options`` (what differs from the gate's defaults)."""
    out: list[str] = []
    for o in gate_options():
        value = options.get(o.key, o.default)
        if value is None or value == o.default:
            continue
        out += [o.flag] if o.switch else [o.flag, render_value(value)]
    return out
