"""A trial's record on its Optuna trial: the whole :class:`TrialRecord` as one JSON user
attribute (``record``), written when the trial's folder is made (status ``running``: its
folder and note, for a ``--resume`` that must stop its server) and again when it ends;
read back whole. ``root`` (the tune folder of the worker that runs it) is written first,
on its own: it says whose trial it is before anything else is known. ``constraint``
(1.0 infeasible, else 0.0) is the number Optuna's ``constraints_func`` convention reads.

A study written before the record was one attribute (a user attribute per field:
``status``, ``why``, ``score``, …) still reads, and resumes (:func:`read`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from harness.tune.record.report import TrialRecord
from harness.tune.record.status import Status

RECORD = "record"
ROOT = "root"
CONSTRAINT = "constraint"


def write(trial: optuna.Trial, record: TrialRecord) -> None:
    """The trial's record, whole (it replaces the one written before)."""
    trial.set_user_attr(RECORD, record.model_dump(mode="json"))


def read(t: FrozenTrial, here: Path | None = None) -> TrialRecord:
    """The trial's record: its number and parameters are the study's; a record still
    ``running`` on a trial the study holds FAIL was interrupted. ``here``: this worker's
    tune folder; another worker's trial folder is then given under its own tune folder."""
    kept = t.user_attrs.get(RECORD)
    record = TrialRecord.model_validate(kept) if isinstance(kept, dict) else _old(t.user_attrs)
    update: dict[str, Any] = {"number": t.number, "params": dict(t.params)}
    if record.status == Status.RUNNING and t.state == TrialState.FAIL:
        update["status"] = Status.INTERRUPTED
    root = t.user_attrs.get(ROOT)
    if record.folder and root and here is not None and root != str(here.resolve()):
        update["folder"] = str(Path(str(root)) / record.folder)  # another worker's tune folder
    return record.model_copy(update=update)


def folder_of(t: FrozenTrial, root: Path) -> Path | None:
    """The trial's run folder (under the tune folder of the worker that ran it, else
    ``root``); None when it never had one."""
    where = read(t).folder
    if not where:
        return None
    return Path(str(t.user_attrs.get(ROOT) or root)) / where


def _old(a: dict[str, Any]) -> TrialRecord:
    """A record kept the way studies were written before: one user attribute per field."""
    return TrialRecord(
        number=0,
        params={},
        note=str(a.get("note", "")),
        status=Status(str(a.get("status", Status.RUNNING))),
        why=str(a.get("why", "")),
        score=a.get("score"),
        feasible=bool(a.get("feasible", False)),
        cold_start_s=a.get("cold_start_s"),
        minutes=a.get("minutes"),
        folder=a.get("folder"),
        launch=str(a.get("launch", "")),
        log_tail=str(a.get("log_tail", "")),
        bound=a.get("bound"),
    )
