"""Confirm the winner (docs/tune.md, "Confirm the winner"): once the search has ended on its
own (budget, grid; not Ctrl-C), the search's best trial is measured again against the
runner-up and the baseline in fresh restarts, round after round, and the verdict says
whether its lead is beyond the noise; the selection error (the search's score against the
confirmed one) is reported.

Round r measures every contestant once (winner, runner-up, baseline; every other round in
the reverse order, so a slow drift of the machine favours none), each leg a fresh start of
its trial's launch, the profile's speed step only (harness/tune/confirm/leg.py), into its
own run folder ``DIR/confirm/rR-tNNN``. A finished leg leaves ``leg.json``: ``--resume``
reuses it and never measures that leg again; a leg folder without one (a killed harness)
gets its recorded server group stopped, and the leg is measured afresh in a new folder.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from harness.gate.hooks import GateHooks
from harness.paired.stats import MIN_EFFECT_PCT
from harness.profiles import Profile
from harness.run_folder import fresh_folder, make_folder
from harness.stats.robust import median
from harness.tune import launch
from harness.tune.confirm.leg import AnyKind, run_leg
from harness.tune.confirm.stats import Option, lead, mean_ci, selection, tie_pick
from harness.tune.confirm.view import leg_line, plan_line
from harness.tune.record.confirm import (
    LEG_FILE,
    Comparison,
    ConfirmLeg,
    ConfirmRecord,
    Contestant,
    SelectionRecord,
)
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.score import speed_kind
from harness.tune.record.status import Status
from harness.tune.space import Choice, Space
from harness.tune.trial import slo_step

CONFIRM_DIR = "confirm"


class Say(Protocol):
    """Where the confirmation's progress lines go (the search's hooks)."""

    def say(self, text: str) -> None: ...

    @property
    def steps(self) -> GateHooks: ...  # each leg's start and speed step, as the gate shows them


def changes(values: Mapping[str, Choice], baseline: Mapping[str, Choice]) -> int:
    """How many parameters differ from the baseline (what ``diff_text`` lists)."""
    return sum(
        1
        for k, v in values.items()
        if k not in baseline or baseline[k] != v or type(baseline[k]) is not type(v)
    )


def contestants(report: TuneReport) -> list[tuple[TrialRecord, str]]:
    """The winner (the search's best), the runner-up (the next feasible trial by score) and
    the baseline (when feasible and not one of those), with their roles."""
    best = report.best
    if best is None:
        return []
    ranked = sorted(
        (t for t in report.trials if t.status.feasible and t.score is not None),
        key=lambda t: (-(t.score or 0.0), t.number),
    )
    out: list[tuple[TrialRecord, str]] = [(best, "winner")]
    runner = next((t for t in ranked if t.number != best.number), None)
    if runner is not None:
        out.append((runner, "runner-up"))
    base = next((t for t in ranked if t.note == "baseline"), None)  # not an interrupted one
    if base is not None:
        for i, (t, role) in enumerate(out):
            if t.number == base.number:
                out[i] = (t, f"{role}, baseline")
                break
        else:
            out.append((base, "baseline"))
    return out


def order(trials: Sequence[int], round_no: int) -> list[int]:
    """The legs of round ``round_no`` (1-based): in order, every other round reversed."""
    return list(trials) if round_no % 2 else list(reversed(trials))


def read_legs(root: Path) -> dict[tuple[int, int], ConfirmLeg]:
    """The finished legs under ``root`` by (round, trial); a leg folder without ``leg.json``
    (a killed harness) has its recorded server group stopped if it still runs."""
    done: dict[tuple[int, int], ConfirmLeg] = {}
    if not root.is_dir():
        return done
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        path = folder / LEG_FILE
        if not path.is_file():
            launch.stop_recorded(folder)
            continue
        try:
            leg = ConfirmLeg.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError):
            continue  # an unreadable record: that leg is measured again
        done.setdefault((leg.round, leg.trial), leg)
    return done


def leg_folder(root: Path, round_no: int, trial: int) -> Path:
    """``root/rR-tNNN``, made without ``exist_ok``: a taken name gets ``-2``, ``-3``, …"""
    return fresh_folder(make_folder(root, "leg folder"), f"r{round_no}-t{trial:03d}", "leg folder")


def build_record(
    rounds: int,
    entrants: Sequence[tuple[TrialRecord, str]],
    legs: Mapping[tuple[int, int], ConfirmLeg],
    baseline: Mapping[str, Choice],
    *,
    min_effect_pct: float = MIN_EFFECT_PCT,
) -> ConfirmRecord:
    """The verdict from the legs measured so far (pure)."""
    people: list[Contestant] = []
    for t, role in entrants:
        scores = [
            legs[(r, t.number)].score if (r, t.number) in legs else None
            for r in range(1, rounds + 1)
        ]
        measured = [s for s in scores if s is not None]
        colds = [
            leg.cold_start_s
            for (r, n), leg in legs.items()
            if n == t.number
            and r <= rounds
            and leg.cold_start_s is not None
            and leg.status == Status.OK  # a void leg's "cold start" was another server's answer
        ]
        m = mean_ci(measured)
        broke = [
            leg.slo
            for (r, n), leg in sorted(legs.items())
            if n == t.number and r <= rounds and leg.slo
        ]
        people.append(
            Contestant(
                trial=t.number,
                role=role,
                note=t.note,
                status=t.status,
                changes=changes(t.params, baseline),
                search_score=t.score,
                scores=scores,
                confirmed_score=m.mean,
                confirmed_ci95=m.ci95,
                cold_start_s=median(colds),
                launch=t.launch,
                slo=broke[0] if broke else "",
            )
        )
    winner, others = people[0], people[1:]
    comparisons = []
    for o in others:
        ld = lead(winner.scores, o.scores, min_effect_pct=min_effect_pct)
        comparisons.append(
            Comparison(
                opponent=o.trial,
                role=o.role,
                pairs=ld.pairs,
                lead_pct=ld.pct,
                ci95_pct=ld.ci95_pct,
                call=ld.call,
            )
        )
    sel = selection(winner.search_score, [s for s in winner.scores if s is not None])
    wanted = {(r, c.trial) for r in range(1, rounds + 1) for c in people}
    record = ConfirmRecord(
        rounds=rounds,
        complete=wanted <= set(legs),
        winner=winner.trial,
        min_effect_pct=min_effect_pct,
        contestants=people,
        legs=sorted((legs[k] for k in wanted if k in legs), key=lambda g: (g.round, g.folder)),
        comparisons=comparisons,
        call=comparisons[0].call if comparisons else "",
        selection=SelectionRecord(
            search_score=sel.search,
            confirmed_score=sel.confirmed,
            gap_pct=sel.gap_pct,
            luck=sel.luck,
        ),
    )
    pick, why = choose(people, comparisons)
    record.pick_by = why
    if pick is not None:
        record.pick, record.pick_command = pick.trial, pick.launch
    return record


def choose(
    people: Sequence[Contestant], comparisons: Sequence[Comparison]
) -> tuple[Contestant | None, str]:
    """The trial to take away: an opponent that beat the winner beyond noise (when its
    quality was measured), else among the winner and the opponents tied with it the tie
    rule's pick (harness/tune/confirm/stats.py ``tie_pick``), else the winner. A contestant
    whose fresh legs broke an SLO is never taken (None: none is left to take)."""
    winner = people[0]
    if winner.slo:
        kept = [p for p in people if p.status == Status.OK and not p.slo]
        if not kept:
            return None, (
                f"none: the winner (trial {winner.trial}) broke an SLO on its confirmation "
                f"legs ({winner.slo}), and no other ok contestant met them all"
            )
        top = max(kept, key=lambda p: p.confirmed_score or 0.0)
        return top, (
            f"the winner (trial {winner.trial}) broke an SLO on its confirmation legs "
            f"({winner.slo}); trial {top.trial} met them all"
        )
    by_trial = {p.trial: p for p in people}
    comparisons = [c for c in comparisons if not by_trial[c.opponent].slo]
    beaten = [by_trial[c.opponent] for c in comparisons if c.call == "overturned"]
    if beaten:
        top = max(beaten, key=lambda p: p.confirmed_score or 0.0)
        if top.status == Status.OK:
            return top, f"trial {top.trial} measured faster than the winner on confirmation"
        return winner, (
            f"trial {top.trial} measured faster, but its quality was not measured "
            f"(status {top.status}): measure it before taking it"
        )
    tied = [by_trial[c.opponent] for c in comparisons if c.call == "tie"]
    options = [winner, *(p for p in tied if p.status == Status.OK)]
    if len(options) > 1:
        opts = [Option(p.trial, p.changes, p.cold_start_s, p.confirmed_score) for p in options]
        chosen, rule = tie_pick(opts)
        return by_trial[chosen.trial], f"a tie within noise, picked by {rule}"
    if tied:
        return winner, "the winner (the tied trials' quality was not measured)"
    call = comparisons[0].call if comparisons else ""
    if call == "confirmed":
        return winner, "its lead is beyond the noise"
    return winner, "the search's best (the confirmation was inconclusive)"


def skipped(report: TuneReport, rounds: int, why: str) -> ConfirmRecord:
    best = report.best
    return ConfirmRecord(
        rounds=rounds,
        skipped=why,
        winner=best.number if best else None,
        pick=best.number if best else None,
        pick_by="the search's best",
        pick_command=best.launch if best else None,
    )


def confirm_winner(
    space: Space,
    profile: Profile,
    folder: Path,
    report: TuneReport,
    hooks: Say,
    *,
    enabled: bool = True,
) -> TuneReport:
    """Run (or resume) the confirmation and save ``tune.json`` after every leg; the report
    is returned unchanged when the search was interrupted, found no best trial, or the
    confirmation is off (``[confirm] rounds = 0``, ``--no-confirm``)."""
    rounds = space.confirm.rounds
    if not enabled or rounds == 0 or report.stopped_by == "interrupted" or report.best is None:
        return report
    entrants = contestants(report)
    kind = speed_kind(profile, space)
    if kind is None or len(entrants) < 2:
        why = "the profile has no speed step" if kind is None else "no other feasible trial"
        report.confirm = skipped(report, rounds, why)
        report.save(folder)
        return report
    return _run(space, profile, folder, report, hooks, kind, entrants)


def _run(
    space: Space,
    profile: Profile,
    folder: Path,
    report: TuneReport,
    hooks: Say,
    kind: AnyKind,
    entrants: Sequence[tuple[TrialRecord, str]],
) -> TuneReport:
    rounds = space.confirm.rounds
    root = folder / CONFIRM_DIR
    legs = read_legs(root)
    params = {t.number: t.params for t, _ in entrants}
    reference = baseline_folder(report, space, folder)
    t0 = time.monotonic()
    hooks.say(plan_line(entrants, rounds))
    try:
        for r in range(1, rounds + 1):
            for n in order([t.number for t, _ in entrants], r):
                if (r, n) in legs:
                    continue
                where = leg_folder(root, r, n)
                rel = str(where.relative_to(folder))
                hooks.say(f"confirm r{r}/{rounds} trial {n:>3} starting")
                leg = run_leg(
                    space,
                    profile,
                    kind,
                    params[n],
                    where,
                    round_no=r,
                    trial=n,
                    rel=rel,
                    hooks=hooks.steps,
                    reference=reference,
                )
                (where / LEG_FILE).write_text(leg.model_dump_json(indent=2), encoding="utf-8")
                legs[(r, n)] = leg
                hooks.say(leg_line(leg, rounds))
                _save(report, folder, rounds, entrants, legs, space.baseline, t0)
    except KeyboardInterrupt:
        _save(report, folder, rounds, entrants, legs, space.baseline, t0)
        return report
    _save(report, folder, rounds, entrants, legs, space.baseline, t0)
    return report


def baseline_folder(report: TuneReport, space: Space, folder: Path) -> Path | None:
    """The baseline trial's run folder (an SLO bound at the baseline is read there)."""
    for t in report.trials:
        if t.folder and t.status != Status.INTERRUPTED and slo_step.is_baseline(space, t.params):
            return folder / t.folder  # another worker's: an absolute path, kept as it is
    return None


def _save(
    report: TuneReport,
    folder: Path,
    rounds: int,
    entrants: Sequence[tuple[TrialRecord, str]],
    legs: Mapping[tuple[int, int], ConfirmLeg],
    baseline: Mapping[str, Choice],
    t0: float,
) -> None:
    record = build_record(rounds, entrants, legs, baseline)
    record.minutes = round((time.monotonic() - t0) / 60, 3)
    report.confirm = record
    report.complete = record.complete
    report.save(folder)
