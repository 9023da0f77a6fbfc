"""One trial: start the candidate → ready (cold start) → the profile's steps through the
gate's own step runner (check: a failure disqualifies; latency: the score; quality with
``--decide`` only when the candidate could become the incumbent) → judge the folder →
stop the server. Every measurement is a core the gate already runs; nothing is re-done.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.errors import EXIT_FAIL, EXIT_TARGET, HarnessError
from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.gate.judge import judge_folder
from harness.gate.orchestrate import UNSTARTED, GatePlan, conclude, run_step
from harness.gate.report import GateReport, Verdict
from harness.profiles import Profile
from harness.registry import AnyKind
from harness.report.ledger import record_run
from harness.run_folder import fresh_folder, make_folder
from harness.target import Target
from harness.tune.launch import Server
from harness.tune.launch.serving import serve
from harness.tune.record.outcome import TrialResult, after_quality, after_speed
from harness.tune.record.status import Status
from harness.tune.space import Choice, Space
from harness.tune.trial import slo_step
from harness.tune.trial.racing import RaceSeat
from harness.tune.trial.steps import step_results


def trial_folder(root: Path, number: int) -> Path:
    """``root/tNNN``, created race-free: an existing folder (another worker's) gets a suffix."""
    return fresh_folder(make_folder(root, "trial folder"), f"t{number:03d}", "trial folder")


def _first_blocking(report: GateReport) -> str:
    blocking = report.blocking
    return blocking[0].text if blocking else report.verdict.value


def gate_plan(
    space: Space, profile: Profile, url: str, folder: Path, *, name: str, note: str
) -> GatePlan:
    """The gate a trial or a confirmation leg runs on a started candidate: the space's
    ``[options]``, its name as the experiment, its profile as given."""
    return GatePlan(
        url=url,
        folder=folder,
        profile=profile,
        options=space.options.gate(),
        name=name,
        note=note,
        experiment=space.name,
        profile_arg=space.profile_arg,
    )


def run_trial(
    space: Space,
    profile: Profile,
    values: Mapping[str, Choice],
    folder: Path,
    incumbent: float | None,
    *,
    name: str,
    reference: Path | None = None,
    hooks: GateHooks = NO_HOOKS,
) -> TrialResult:
    """Measure one candidate into ``folder`` (already made); the server is stopped on every
    way out, Ctrl-C included. ``reference``: the baseline trial's folder, for the SLOs
    bounded by the baseline (harness/tune/trial/slo_step.py); ``hooks``: the progress of its
    start and of each step, as the gate shows them."""
    result = _run_trial(
        space, profile, values, folder, incumbent, name=name, reference=reference, hooks=hooks
    )
    planned = gate_plan(space, profile, UNSTARTED, folder, name=name, note="").steps()
    result.results = step_results(folder, planned, result.steps)
    return result


def _run_trial(
    space: Space,
    profile: Profile,
    values: Mapping[str, Choice],
    folder: Path,
    incumbent: float | None,
    *,
    name: str,
    reference: Path | None,
    hooks: GateHooks,
) -> TrialResult:
    def measure(cand: Server, note: str) -> TrialResult:
        return _measure(
            space,
            profile,
            folder,
            cand.url,
            incumbent,
            name=name,
            note=note,
            cand=cand,
            reference=reference,
            hooks=hooks,
        )

    served = serve(space, profile, values, folder, hooks, measure)
    if served.failed is not None:
        return TrialResult(
            Status.FAILED_TO_START,
            served.failed.message,
            launch=served.launch,
            log_tail=served.failed.log_tail,
        )
    result = served.result
    assert result is not None  # started, so measured
    result.cold_start_s = served.cold_start_s
    result.launch = served.launch
    if served.stray is not None:  # measured, but not (only) the candidate: nothing counts
        return TrialResult(
            Status.VOID,
            served.stray,
            launch=served.launch,
            cold_start_s=result.cold_start_s,
            steps=result.steps,  # measured, though none of it counts
        )
    return result


def deferred_steps(steps: Sequence[AnyKind]) -> list[AnyKind]:
    """The steps measured only when the trial could beat the incumbent: those that neither
    gate the rest (check) nor carry the score (latency, throughput): quality."""
    return [k for k in steps if not (k.prerequisite or k.score is not None)]


def _measure(
    space: Space,
    profile: Profile,
    folder: Path,
    url: str,
    incumbent: float | None,
    *,
    name: str,
    note: str,
    cand: Server,
    reference: Path | None = None,
    hooks: GateHooks = NO_HOOKS,
) -> TrialResult:
    plan = gate_plan(space, profile, url, folder, name=name, note=note)
    steps = plan.steps()
    deferred = deferred_steps(steps)
    target_steps = [k for k in steps if all(k is not d for d in deferred)]
    done: list[str] = []
    target = Target(folder=folder, url=url)
    seat = RaceSeat(space.race, incumbent, space.slo, reference, folder)
    for kind in target_steps:
        hooks.step(kind.name)
        try:
            rc = run_step(kind, plan, hooks, target, configure=seat.configure)
        except HarnessError as err:
            rc, why = -1, err.one_line()
        else:
            why = ""
        finally:
            hooks.step_end(kind.name)
        done.append(kind.name)
        if (code := cand.poll()) is not None:
            return TrialResult(
                Status.CRASHED,
                f"the server exited (code {code}) during {kind.name}",
                log_tail=cand.tail(),
                steps=done,
            )
        if rc == -1 or rc == EXIT_TARGET:
            return TrialResult(
                Status.ERROR, f"{kind.name}: {why or 'target unreachable'}", steps=done
            )
        if rc == EXIT_FAIL and kind.prerequisite:
            report = judge_folder(folder, profile, plan.provenance(plan.command_line()), skipped=[])
            return TrialResult(
                Status.DISQUALIFIED, _first_blocking(report), verdict="FAIL", steps=done
            )
    skipped = [k.name for k in deferred]
    interim = judge_folder(folder, profile, plan.provenance(plan.command_line()), skipped=skipped)
    score = interim.grader_score
    racer = seat.racer
    slo_stop = seat.slo_stopped  # a tail SLO it cannot meet stopped it (tune/trial/tail_race.py)
    raced = racer.stopped if racer is not None and slo_stop is None else None
    blocking = None
    if interim.verdict is Verdict.FAIL:
        blocking = _first_blocking(_conclude(plan, skipped))
    slo_failed = None
    if space.slo and blocking is None and not raced:  # a raced run is partial: no SLO on it
        slo_failed = slo_step.check_folder(space.slo, folder, reference, stopped=slo_stop)
    ended = after_speed(
        raced=raced,
        bound=racer.bound if racer is not None else None,
        blocking=blocking,
        slo=slo_failed,
        score=score,
        incumbent=incumbent,
        quality_next=bool(deferred),
    )
    if ended is not None:
        if blocking is None:  # a raced or slower folder is judged and recorded as it is
            _conclude(plan, skipped)
        ended.steps = done
        ended.score_caveat = interim.score_caveat
        return ended
    for kind in deferred:
        hooks.step(kind.name)
        try:
            run_step(kind, plan, hooks, target)
        except HarnessError as err:
            why = f"{kind.name}: {err.one_line()}"
            caveat = interim.score_caveat
            return TrialResult(Status.ERROR, why, score, steps=done, score_caveat=caveat)
        finally:
            hooks.step_end(kind.name)
        done.append(kind.name)
    final = _conclude(plan, [])
    rule_kinds = {k.name for k in steps if k.judges_rules}
    audit = [r.text for r in final.blocking if r.source in rule_kinds]
    result = after_quality(
        audit=audit[0] if audit else None,
        blocking=_first_blocking(final) if final.verdict is Verdict.FAIL else None,
        score=final.grader_score,
        incumbent=incumbent,
        verdict=final.verdict.value,
    )
    result.steps = done
    result.score_caveat = final.score_caveat
    return result


def _conclude(plan: GatePlan, skipped: list[str]) -> GateReport:
    report = conclude(
        plan.folder, plan.profile, plan.provenance(plan.command_line()), skipped=skipped
    )
    record_run(plan.folder, plan.name, plan.note)
    return report


def elapsed_min(t0: float) -> float:
    return round((time.monotonic() - t0) / 60, 3)
