"""One confirmation leg: a contestant started afresh with its trial's launch (a new port),
waited for, its profile's speed step measured into the leg's run folder, stopped.

The server goes through the sequence a trial's goes through (harness/tune/launch/serving.py:
a process in its own group with ``PR_SET_PDEATHSIG``, or the image's container;
``candidate.json`` written before anything is measured), stopped on every way out, Ctrl-C
included.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.errors import EXIT_TARGET, HarnessError
from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.gate.orchestrate import GatePlan, run_step
from harness.kinds.record import MeasurementKind
from harness.profiles import Profile
from harness.report_base import load_report
from harness.target import Target
from harness.tune.launch import Server
from harness.tune.launch.serving import serve
from harness.tune.record.confirm import ConfirmLeg
from harness.tune.record.score import speed_kind as speed_kind  # re-exported: its home is score.py
from harness.tune.record.status import Status
from harness.tune.space import Choice, Space
from harness.tune.trial import gate_plan, slo_step

AnyKind = MeasurementKind[Any, Any, Any, Any]


def run_leg(
    space: Space,
    profile: Profile,
    kind: AnyKind,
    values: Mapping[str, Choice],
    folder: Path,
    *,
    round_no: int,
    trial: int,
    rel: str,
    hooks: GateHooks = NO_HOOKS,
    reference: Path | None = None,
) -> ConfirmLeg:
    """Measure one leg into ``folder`` (already made); ``hooks``: its progress. The SLOs of
    SPACE.toml are checked again on the leg's speed report (``reference``: the baseline
    trial's folder, for a bound at the baseline)."""
    leg = ConfirmLeg(round=round_no, trial=trial, status=Status.OK, folder=rel)

    def measure(cand: Server, note: str) -> ConfirmLeg:
        name = f"{space.name}-confirm-r{round_no}-t{trial:03d}"
        plan = gate_plan(space, profile, cand.url, folder, name=name, note=note)
        return _measure(kind, plan, leg, cand, hooks)

    served = serve(
        space, profile, values, folder, hooks, measure, {"round": round_no, "trial": trial}
    )
    if served.failed is not None:
        update = {
            "launch": served.launch,
            "status": Status.FAILED_TO_START,
            "why": served.failed.message,
            "log_tail": served.failed.log_tail,
        }
        return leg.model_copy(update=update)
    measured = served.result
    assert measured is not None  # started, so measured
    measured = measured.model_copy(
        update={"cold_start_s": served.cold_start_s, "launch": served.launch}
    )
    if served.stray is not None:  # not (only) the contestant was measured: nothing counts
        return measured.model_copy(
            update={"status": Status.VOID, "why": served.stray, "score": None}
        )
    if space.slo and measured.score is not None:
        broke = slo_step.check_folder(space.slo, folder, reference)
        if broke is not None:
            return measured.model_copy(update={"slo": broke})
    return measured


def _measure(
    kind: AnyKind, plan: GatePlan, leg: ConfirmLeg, cand: Server, hooks: GateHooks
) -> ConfirmLeg:
    hooks.step(kind.name)
    try:
        rc = run_step(kind, plan, hooks, Target(folder=plan.folder, url=plan.url))
    except HarnessError as err:
        return leg.model_copy(
            update={"status": Status.ERROR, "why": f"{kind.name}: {err.one_line()}"}
        )
    finally:
        hooks.step_end(kind.name)
    if (code := cand.poll()) is not None:
        why = f"the server exited (code {code}) during {kind.name}"
        tail = cand.tail()
        return leg.model_copy(update={"status": Status.CRASHED, "why": why, "log_tail": tail})
    try:
        report = load_report(plan.folder, kind.report)
    except HarnessError as err:
        return leg.model_copy(update={"status": Status.ERROR, "why": err.one_line()})
    assert kind.score is not None  # speed_kind picks a kind with a score
    score = kind.score.of(report) if report is not None and report.complete else None
    if score is None:
        why = "target unreachable" if rc == EXIT_TARGET else "no complete score measured"
        return leg.model_copy(update={"status": Status.ERROR, "why": f"{kind.name}: {why}"})
    return leg.model_copy(update={"score": float(score)})
