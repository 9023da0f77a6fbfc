"""Finishing an interrupted ``harness latency --repeats N`` run in its folder (``--resume``).

A repeats run measures ``repeat-1/`` … ``repeat-N/`` one after the other, then pools them
into the folder's ``latency.json``. Each repetition records which one it is and the base
seed all their seeds derive from (``settings.repeat``). Stopped by Ctrl-C or SIGTERM, the
repetition in progress saves its partial report like a single run, and the folder holds
no pooled report yet. ``--resume`` (with the same ``--repeats N``) then keeps every
repetition measured to its end as it is, finishes the cut one as a single run is finished
(its buckets measured to the end kept, harness/latency/resume.py), measures those never
begun with their own seeds, and pools all N: nothing is measured twice (docs/timing.md,
"Interrupted runs").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from harness.errors import UsageError
from harness.latency.config import LatencyConfig
from harness.latency.repeats import REPEAT_DIR
from harness.latency.report import LatencyReport
from harness.latency.resume import FORCE, RESUME, Resumption
from harness.latency.state import LatencyState
from harness.report_base import load_report
from harness.target import OUT


@dataclass(frozen=True)
class RepeatsResume:
    """What an interrupted repeats run left: its base seed and its repetitions' reports."""

    base_seed: int
    seed_drawn: bool
    done: dict[int, LatencyReport] = field(default_factory=dict)  # measured to the end
    cut: dict[int, LatencyReport] = field(default_factory=dict)  # partial: finished anew


def repeat_record(index: int, total: int, base_seed: int) -> dict[str, int]:
    """``settings.repeat`` of repetition ``index``: what ``--resume`` reads back."""
    return {"index": index, "of": total, "base_seed": base_seed}


def guard_repeats(
    out: str | None, repeats: int, *, resume: bool, force: bool
) -> RepeatsResume | None:
    """Said before anything is measured (exit 2, one line): the folder of a repeats run is
    finished only with ``--resume``, overwritten only with ``--force``. Returns what
    ``--resume`` starts from (None without it)."""
    if resume and force:
        raise UsageError(f"{RESUME} and {FORCE} contradict each other", hint="pass one of them")
    if out is None:
        if resume:
            raise UsageError(
                f"{RESUME} needs {OUT} DIR, the interrupted run's folder",
                hint="run the command the interrupted run printed",
            )
        return None
    folder = Path(out)
    first = folder / REPEAT_DIR.format(i=1) / LatencyReport.FILENAME
    pooled = folder / LatencyReport.FILENAME
    if not resume:
        if (first.exists() or pooled.exists()) and not force:
            raise UsageError(
                f"{folder} already holds a latency run",
                hint=f"use {RESUME} to finish it, or another {OUT} / {FORCE} to overwrite it",
            )
        return None
    if pooled.exists():
        raise UsageError(
            f"{pooled} is a complete run: nothing to resume",
            hint=f"use another {OUT}, or {FORCE} to measure again over it",
        )
    reports = _repetitions(folder)
    if not reports:
        raise UsageError(
            f"{first} does not exist: nothing to resume",
            hint=f"drop {RESUME} to start a run in {out}",
        )
    mark = reports[min(reports)].settings.get("repeat")
    if not isinstance(mark, dict) or not isinstance(mark.get("base_seed"), int):
        raise UsageError(
            f"{first} does not say which repetition it is (measured by an older harness)",
            hint=f"use another {OUT}, or {FORCE} to measure again over it",
        )
    if mark.get("of") != repeats:
        raise UsageError(
            f"the interrupted run in {folder} was measured with --repeats {mark.get('of')};"
            f" this command asks {repeats}",
            hint="resume with the interrupted run's flags (the command it printed)",
        )
    first_report = reports[min(reports)]
    return RepeatsResume(
        base_seed=int(mark["base_seed"]),
        seed_drawn=first_report.settings.get("seed_source") == "drawn",
        done={i: r for i, r in reports.items() if r.complete},
        cut={i: r for i, r in reports.items() if not r.complete},
    )


def _repetitions(folder: Path) -> dict[int, LatencyReport]:
    found: dict[int, LatencyReport] = {}
    i = 1
    while (folder / REPEAT_DIR.format(i=i)).is_dir():
        report = load_report(folder / REPEAT_DIR.format(i=i), LatencyReport)
        if report is not None:
            found[i] = report
        i += 1
    return found


def kept_state(report: LatencyReport) -> tuple[LatencyState, Resumption]:
    """A repetition measured to its end, as the state pooling reads (its rows; its strict
    ITL samples are not in its report, only their summary) and the record of keeping it."""
    finished = report.settings.get("finished_buckets")
    done = [str(p) for p in finished] if isinstance(finished, list) else []
    state = LatencyState(
        rows=list(report.requests),
        readiness_s=report.readiness_s,
        finished_buckets=[(p.split("/", 1)[0], p.split("/", 1)[1]) for p in done if "/" in p],
    )
    for m in report.provenance.server_models or []:
        state.server_models.append(m)
    record = Resumption(
        interrupted_started_at=report.provenance.started_at,
        interrupted_finished_at=report.provenance.finished_at,
        kept=done,
        requests_kept=len(report.requests),
    )
    return state, record


def resumed_config(cfg: LatencyConfig, resume: RepeatsResume) -> LatencyConfig:
    """``cfg`` with the interrupted run's base seed; a different ``--seed`` is refused."""
    if not cfg.seed_drawn and cfg.seed != resume.base_seed:
        raise UsageError(
            f"the interrupted run was measured with base seed {resume.base_seed}; this command"
            f" asks --seed {cfg.seed}",
            hint="resume with the interrupted run's flags (the command it printed)",
        )
    return replace(cfg, seed=resume.base_seed, seed_drawn=resume.seed_drawn)
