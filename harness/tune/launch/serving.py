"""A candidate served for one measurement, the sequence a trial and a confirmation leg share:
its launch planned and ``params.json`` written → started → ready (its cold start) → its
manifest taken → measured (the caller's ``measure``) → stopped on every way out, Ctrl-C
included → whether its URL still answers (another server was measured too: the folder is
hidden as void)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from harness.gate.hooks import GateHooks
from harness.profiles import Profile
from harness.tune.launch import Server, candidate, own, plan_launch, wait_said, write_params
from harness.tune.space import Choice, Space
from harness.tune.space.template import diff_text

R = TypeVar("R")


@dataclass
class Served(Generic[R]):
    """How the sequence ended: ``failed`` (it never answered ready), or ``result`` (what
    ``measure`` returned) with its cold start, and ``stray`` when its URL still answered
    after it stopped (the folder already hidden as void)."""

    launch: str  # the launch line
    note: str  # its values against the baseline's
    failed: candidate.StartFailed | None = None
    result: R | None = None
    cold_start_s: float | None = None
    stray: str | None = None


def serve(
    space: Space,
    profile: Profile,
    values: Mapping[str, Choice],
    folder: Path,
    hooks: GateHooks,
    measure: Callable[[Server, str], R],
    meta: Mapping[str, object] | None = None,
) -> Served[R]:
    """Serve the candidate ``values`` from ``folder`` (already made) and ``measure(server,
    note)`` it; ``meta``: more for ``params.json``."""
    off = [
        k for k in space.params if k not in values
    ]  # inactive (harness/tune/space/conditions.py)
    how = plan_launch(space.serve, values, profile.server.port, off)
    note = diff_text(values, space.baseline)
    params: dict[str, object] = {"params": dict(values), "note": note, **how.meta()}
    params |= meta or {}
    write_params(folder, params)
    try:
        cand = how.start(folder)
    except candidate.StartFailed as err:  # another server at its URL; an image refused
        return Served(how.line, note, failed=err)
    try:
        cold = wait_said(cand, profile, space, hooks)
        if isinstance(cold, candidate.StartFailed):
            return Served(how.line, note, failed=cold)
        if cand.url != how.url:
            write_params(folder, params, cand.url)
        how.take_manifest(folder, cand.url)  # what ran, with the launch only the tuner knows
        result = measure(cand, note)
    finally:
        cand.stop()
    stray = own.still_answers(cand.url) if space.serve.image is None else None
    if stray is not None:  # measured, but not (only) the candidate: nothing of it counts
        own.hide_void(folder, stray)
    return Served(how.line, note, result=result, cold_start_s=round(cold, 3), stray=stray)
