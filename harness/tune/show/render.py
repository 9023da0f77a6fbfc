"""The console: a line per trial as it finishes, and the best feasible trial at the end."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from harness.gate.console import ConsoleGateHooks
from harness.gate.hooks import GateHooks
from harness.gate.views import score_label
from harness.kinds.record import MeasurementKind
from harness.report_base import Report
from harness.tune.confirm.view import confirm_lines
from harness.tune.record.outcome import NEW_INCUMBENT
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.score import score_text, unit_of
from harness.tune.study.config import TuneHooks
from harness.tune.study.storage import recorded
from harness.tune.trial.steps import shown


def trial_line(record: TrialRecord, rank: int | None, total: int, unit: str = "") -> str:
    """``unit``: the score's (harness/tune/record/score.py ``unit_of``)."""
    score = "   —   " if record.score is None else f"{record.score:6.3f}{unit}"
    place = f"#{rank}" if rank is not None else "—"
    style = record.status.style
    why = record.why
    if why == NEW_INCUMBENT and rank is not None and rank > 1:
        # it beat the incumbent it was raced against; another worker's trial, measured at
        # the same time, ended higher: "#2 … new incumbent" would say two things at once
        why = "beat the incumbent it was measured against; another worker's trial ranks higher"
    return (
        f"trial {record.number:>3}  {place:>4}  {score}  [{style}]{record.status:<15}[/]  "
        f"{escape(record.note)} — {escape(why)}"
    )


class StepLines(ConsoleGateHooks):
    """A trial's (or a confirmation leg's) steps as the gate shows them, indented under the
    trial, each step's progress bar included; the step's own report is not printed (the
    trial's line sums it up)."""

    def step(self, name: str) -> None:
        self.console.print(f"  ▸ {name}")

    def done(self, kind: MeasurementKind[Any, Any, Any, Any], report: Report) -> None:
        self.step_end(kind.name)


class ConsoleTuneHooks(TuneHooks):
    def __init__(
        self, console: Console, profile: str = "", folder: str = "", unit: str = ""
    ) -> None:
        self.console = console
        self.unit = unit
        self._steps = StepLines(console, profile=profile, folder=folder)

    @property
    def steps(self) -> GateHooks:
        return self._steps

    def trial_done(self, record: TrialRecord, rank: int | None, total: int) -> None:
        self.console.print(trial_line(record, rank, total, self.unit))
        if record.steps:  # every step it ran, with its result (the audit's included)
            self.console.print(f"            {escape(shown(record.steps))}", style="dim")
        if record.log_tail and record.status.log_shown:
            self.console.print(escape(record.log_tail), style="dim")

    def say(self, text: str) -> None:
        self.console.print(text)


def render_tune(console: Console, report: TuneReport, folder: str) -> None:
    n = len(report.trials)
    console.print(
        f"tune {escape(report.name)}: {n} trial(s), sampler {report.sampler}, "
        f"stopped by {report.stopped_by or 'nothing yet: the study has not ended'}"
    )
    best = report.best
    if best is None:
        console.print("[red]no feasible trial measured in full: no candidate to recommend[/]")
    else:
        console.print(
            f"[bold]best: trial {best.number}[/] {score_text(report.score_name, best.score)} "
            f"{escape(score_label(report.score_name, best.score_caveat))} "
            f"({escape(best.note)})"
        )
        if report.confirm is not None:
            for line in confirm_lines(report.confirm, unit_of(report.score_name)):
                console.print(line, soft_wrap=True)
        rec = report.confirm
        if rec is not None and rec.pick is None and not rec.skipped and rec.pick_by:
            console.print("[red]no launch to recommend: the confirmation picked none[/]")
        else:
            launch = rec.pick_command if rec is not None else None
            console.print(f"launch: {escape(launch or best.launch)}", soft_wrap=True)
    console.print(f"tune.json: {folder}/tune.json")
    if report.interrupted or not report.complete:  # or a study not ended (a killed harness)
        console.print(f"resume: {escape(resume_line(folder))}", soft_wrap=True)


def resume_line(folder: str) -> str:
    """The command that continues this tune (``--storage`` asked again when its password
    was not kept: harness/tune/study/storage.py)."""
    kept = recorded(Path(folder))
    again = " --storage URL" if kept is not None and "***" in kept else ""
    return f"harness tune --resume {shlex.quote(folder)}{again}"
