"""Conditions between parameters (pure): a parameter that applies only when others have
given values (``[params.NAME] when = {OTHER = VALUE}``), and forbidden combinations
(``[[exclude]]`` tables). docs/tune.md, "Conditions between parameters".

A point is a mapping of the *active* parameters to values: an inactive parameter is absent,
so it is never drawn, never filled into the launch (harness/tune/space/template.py) and never
part of the diff from the baseline. No I/O: tested with literal spaces
(tests/unit/test_tune_conditions.py).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

Value = str | int | float | bool
Cond = Mapping[str, Sequence[Value]]  # parameter → the values it may have (any of); all hold


def same(a: Value, b: Value) -> bool:
    """Equal and of one type (``1`` is not ``True``, ``8`` is not ``8.0``), as SPACE.toml's
    value checks compare."""
    return type(a) is type(b) and a == b


def matches(cond: Cond, values: Mapping[str, Value]) -> bool:
    """Every parameter of ``cond`` is in ``values`` (active) with one of its listed values."""
    return all(k in values and any(same(values[k], v) for v in vs) for k, vs in cond.items())


def order(names: Sequence[str], when: Mapping[str, Cond]) -> list[str]:
    """The parameters in their file order, each after the parameters its condition names
    (they are decided first); a cycle is a ValueError naming one of its parameters."""
    out: list[str] = []
    state: dict[str, int] = {}  # 1: being placed, 2: placed

    def place(name: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise ValueError(f"params.{name}.when: the conditions form a cycle through {name}")
        state[name] = 1
        for dep in when.get(name, {}):
            place(dep)
        state[name] = 2
        out.append(name)

    for name in names:
        place(name)
    return out


def active_values(
    names: Sequence[str], when: Mapping[str, Cond], draw: Callable[[str], Value]
) -> dict[str, Value]:
    """A point: each active parameter's value from ``draw`` (Optuna's suggest), in
    :func:`order`; an inactive one is never drawn."""
    out: dict[str, Value] = {}
    for name in order(names, when):
        cond = when.get(name)
        if cond is None or matches(cond, out):
            out[name] = draw(name)
    return out


def inactive(names: Sequence[str], values: Mapping[str, Value]) -> list[str]:
    return [n for n in names if n not in values]


def excluded_by(exclude: Sequence[Cond], values: Mapping[str, Value]) -> int | None:
    """The index of the first ``[[exclude]]`` rule the point matches (None: allowed)."""
    return next((i for i, rule in enumerate(exclude) if matches(rule, values)), None)


def rule_text(rule: Cond) -> str:
    return ", ".join(
        f"{k} = {vs[0]!r}" if len(vs) == 1 else f"{k} in {list(vs)!r}" for k, vs in rule.items()
    )


def grid_points(
    choices: Mapping[str, Sequence[Value]],
    when: Mapping[str, Cond],
    exclude: Sequence[Cond],
    baseline: Mapping[str, Value] | None = None,
    seed: int | None = None,
) -> list[dict[str, Value]]:
    """Every valid point of an all-choice space, each once: inactive parameters absent,
    excluded points left out. ``seed``: the points shuffled (seeded); the baseline's point
    (when it is one) first either way."""
    points: list[dict[str, Value]] = [{}]
    for name in order(list(choices), when):
        cond = when.get(name)
        nxt: list[dict[str, Value]] = []
        for p in points:
            if cond is not None and not matches(cond, p):
                nxt.append(p)
            else:
                nxt.extend({**p, name: v} for v in choices[name])
        points = nxt
    valid = [p for p in points if excluded_by(exclude, p) is None]
    if seed is not None:
        random.Random(seed).shuffle(valid)
    if baseline:
        first = [p for p in valid if _equal(p, baseline)]
        valid = first + [p for p in valid if not _equal(p, baseline)]
    return valid


def _equal(a: Mapping[str, Value], b: Mapping[str, Value]) -> bool:
    return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)


def point_key(values: Mapping[str, Value]) -> tuple[tuple[str, str], ...]:
    """A hashable key of a point (type-exact: ``1`` and ``True`` differ)."""
    return tuple(sorted((k, f"{type(v).__name__}:{v!r}") for k, v in values.items()))
