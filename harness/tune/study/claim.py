"""Which trial measures a point: the lowest-numbered one that holds it.

Several workers share one study, and the same parameter values may reach two trials at
once: the grid's own copy of the enqueued baseline, a grid point that two workers draw
when every point has started (Optuna's GridSampler then re-draws unfinished points), TPE
or random drawing a point twice, or a resumed worker queueing again what another has.
The study itself decides, with no scheduler of ours: trial numbers are unique in the
storage, and a point belongs to the lowest-numbered trial that holds it — COMPLETE,
RUNNING, or WAITING with it as its fixed parameters. A trial yields (is pruned) when a
lower-numbered one holds its values.

Why this never measures a point twice: a trial writes its values to the storage before
it looks. Before deciding, a trial waits until every lower-numbered RUNNING trial has
written all its values (milliseconds after it was asked for), so of two trials with the
same values the higher-numbered one always sees the lower one, and yields. A lower trial
whose worker died before writing its values is no longer waited for after ``WAIT_S``.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

WAIT_S = 30.0
POLL_S = 0.05
HOLDING = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING)


def values_of(t: FrozenTrial) -> Mapping[str, Any]:
    """The values a trial holds: an enqueued trial's fixed ones (known from the moment it was
    queued), else its parameters as far as written."""
    fixed = t.system_attrs.get("fixed_params")
    return fixed if isinstance(fixed, Mapping) else t.params


def same(held: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    return all(k in held and held[k] == v for k, v in values.items())


def holder(
    study: optuna.Study,
    number: int,
    values: Mapping[str, Any],
    *,
    wait_s: float = WAIT_S,
    poll_s: float = POLL_S,
) -> FrozenTrial | None:
    """The lowest-numbered trial below ``number`` that holds ``values`` (None: it is ours)."""
    names: Collection[str] = values.keys()
    deadline = time.monotonic() + wait_s
    while True:
        lower = [t for t in study.get_trials(deepcopy=False, states=HOLDING) if t.number < number]
        found = sorted((t for t in lower if same(values_of(t), values)), key=lambda t: t.number)
        if found:
            return found[0]
        pending = [
            t
            for t in lower
            if t.state == TrialState.RUNNING and not all(k in values_of(t) for k in names)
        ]
        if not pending or time.monotonic() >= deadline:
            return None
        time.sleep(poll_s)
