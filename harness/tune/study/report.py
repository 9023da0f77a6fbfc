"""The study's ``tune.json``: every trial measured or interrupted, the best feasible one, and
whether the study ended."""

from __future__ import annotations

import optuna
from optuna.trial import FrozenTrial, TrialState

from harness.tune.record import trial_store
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.status import Status
from harness.tune.study.config import TuneConfig


def _shown(t: FrozenTrial) -> bool:
    """Trials measured or interrupted (not a pruned duplicate, not one still waiting)."""
    return t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.RUNNING)


def ranked(records: list[TrialRecord]) -> list[TrialRecord]:
    scored = [r for r in records if r.feasible and r.score is not None]
    return sorted(scored, key=lambda r: (-(r.score or 0.0), r.number))


def build_report(
    study: optuna.Study, cfg: TuneConfig, sampler: str, stopped_by: str, score_name: str
) -> TuneReport:
    records = [
        trial_store.read(t, cfg.folder) for t in study.get_trials(deepcopy=False) if _shown(t)
    ]
    best_ok = [r for r in ranked(records) if r.status == Status.OK]
    best = best_ok[0] if best_ok else None
    report = TuneReport(
        name=cfg.space.name or "tune",
        sampler=sampler,
        score_name=score_name,
        stopped_by=stopped_by,
        trials=records,
        best=best,
        best_command=best.launch if best else None,
        # ended: a stop rule, a budget or the grid said so; a report written mid-study (or
        # left by a killed harness) is not complete, nor is an interrupted one
        complete=ended(stopped_by),
    )
    report.provenance.profile = cfg.profile.name
    report.provenance.experiment = cfg.space.name
    return report


def ended(stopped_by: str) -> bool:
    """Whether the study ended (its stop rule or budget), from what stopped it ('': not yet)."""
    return stopped_by not in ("", "interrupted")
