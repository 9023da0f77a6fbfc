"""The named checks, and how a profile and ``--only``/``--skip`` select them.

Each check module registers its functions with :func:`check`. A name is stable
(profiles and ``check.json`` use it); a group gathers related checks
(``--only shapes`` selects every shape check). ``concurrency`` is a family: the
profile's ``[check] concurrency = [8, 64]`` plans ``concurrency_8`` and
``concurrency_64``.

Phases order the run so checks do not distort each other (docs/check.md):
``light`` checks run side by side with few requests in flight; ``quiet`` checks
compare greedy texts and run one at a time; ``load`` checks run alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from harness.conformance.context import CheckContext
from harness.conformance.report import Outcome
from harness.errors import ConfigError

Phase = Literal["first", "light", "background", "quiet", "load"]
CheckFunc = Callable[[CheckContext], Awaitable[Outcome]]
FamilyFunc = Callable[[CheckContext, int], Awaitable[Outcome]]

MODULES = (
    "readiness",
    "served",
    "shapes",
    "honesty",
    "sameness",
    "thinking",
    "streaming",
    "load",
    "bad_input",
)


@dataclass(frozen=True)
class CheckDef:
    name: str
    group: str
    title: str
    phase: Phase
    func: CheckFunc | None = None
    family: FamilyFunc | None = None  # a parametrised check: name_<n>
    needs: tuple[str, ...] = ()  # skipped when one of these failed


@dataclass(frozen=True)
class PlannedCheck:
    name: str
    spec: CheckDef
    param: int | None = None

    async def run(self, ctx: CheckContext) -> Outcome:
        if self.spec.family is not None and self.param is not None:
            return await self.spec.family(ctx, self.param)
        if self.spec.func is None:
            raise RuntimeError(f"check {self.name} has no function")
        return await self.spec.func(ctx)


_REGISTRY: dict[str, CheckDef] = {}


def check(
    name: str, *, group: str, title: str, phase: Phase, needs: tuple[str, ...] = ()
) -> Callable[[CheckFunc], CheckFunc]:
    def deco(func: CheckFunc) -> CheckFunc:
        _REGISTRY[name] = CheckDef(name, group, title, phase, func=func, needs=needs)
        return func

    return deco


def family(
    name: str, *, group: str, title: str, phase: Phase, needs: tuple[str, ...] = ()
) -> Callable[[FamilyFunc], FamilyFunc]:
    def deco(func: FamilyFunc) -> FamilyFunc:
        _REGISTRY[name] = CheckDef(name, group, title, phase, family=func, needs=needs)
        return func

    return deco


def registry() -> dict[str, CheckDef]:
    for mod in MODULES:
        importlib.import_module(f"harness.conformance.{mod}")
    return dict(_REGISTRY)


def all_planned(concurrency: tuple[int, ...]) -> list[PlannedCheck]:
    """Every check this harness knows, in run order, with families expanded."""
    out: list[PlannedCheck] = []
    for spec in registry().values():
        if spec.family is not None:
            out += [PlannedCheck(f"{spec.name}_{n}", spec, n) for n in concurrency]
        else:
            out.append(PlannedCheck(spec.name, spec))
    return out


def _names(text: str | None) -> list[str]:
    return [n.strip() for n in (text or "").split(",") if n.strip()]


def _matches(item: PlannedCheck, key: str) -> bool:
    return key in (item.name, item.spec.group, item.spec.name)


def select(
    concurrency: tuple[int, ...],
    profile_checks: list[str],
    only: str | None = None,
    skip: str | None = None,
) -> list[PlannedCheck]:
    """The checks to run: the profile's list (empty = all), narrowed by --only/--skip.

    Names may be check names (``chat_completions``, ``concurrency_64``), family
    names (``concurrency``) or group names (``shapes``). Unknown names are a
    ConfigError that lists the valid ones.
    """
    known = all_planned(concurrency)
    valid = sorted({k for p in known for k in (p.name, p.spec.group, p.spec.name)})

    def verify(keys: list[str], where: str) -> None:
        for key in keys:
            if not any(_matches(p, key) for p in known):
                raise ConfigError(
                    f"{where}: unknown check {key!r}", hint=f"valid: {', '.join(valid)}"
                )

    verify(profile_checks, "profile [check] checks")
    only_keys, skip_keys = _names(only), _names(skip)
    verify(only_keys, "--only")
    verify(skip_keys, "--skip")
    chosen = [p for p in known if not profile_checks or any(_matches(p, k) for k in profile_checks)]
    if only_keys:
        chosen = [p for p in chosen if any(_matches(p, k) for k in only_keys)]
    chosen = [p for p in chosen if not any(_matches(p, k) for k in skip_keys)]
    return chosen


def required_names(planned: list[PlannedCheck], required: list[str]) -> frozenset[str]:
    """Required checks among the planned ones (profile names may be groups or families)."""
    return frozenset(p.name for p in planned if any(_matches(p, k) for k in required))
