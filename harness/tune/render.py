"""The console: a line per trial as it finishes, and the best feasible trial at the end."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from harness.tune.confirm_view import confirm_lines
from harness.tune.report import TrialRecord, TuneReport
from harness.tune.search import TuneHooks

_STYLE = {
    "ok": "green",
    "slower": "cyan",
    "lost-race": "cyan",
    "gate-failed": "red",
    "audit-failed": "red",
    "slo-failed": "red",
    "disqualified": "red",
}


def trial_line(record: TrialRecord, rank: int | None, total: int) -> str:
    score = "   —   " if record.score is None else f"{record.score:6.3f}×"
    place = f"#{rank}" if rank is not None else "—"
    style = _STYLE.get(record.status, "yellow")
    return (
        f"trial {record.number:>3}  {place:>4}  {score}  [{style}]{record.status:<15}[/]  "
        f"{escape(record.note)} — {escape(record.why)}"
    )


class ConsoleTuneHooks(TuneHooks):
    def __init__(self, console: Console) -> None:
        self.console = console

    def trial_done(self, record: TrialRecord, rank: int | None, total: int) -> None:
        self.console.print(trial_line(record, rank, total))
        if record.log_tail and record.status in ("failed-to-start", "crashed"):
            self.console.print(escape(record.log_tail), style="dim")

    def say(self, text: str) -> None:
        self.console.print(text)


def render_tune(console: Console, report: TuneReport, folder: str) -> None:
    n = len(report.trials)
    console.print(
        f"tune {escape(report.name)}: {n} trial(s), sampler {report.sampler}, "
        f"stopped by {report.stopped_by or '—'}"
    )
    best = report.best
    if best is None:
        console.print("[red]no feasible trial measured in full: no candidate to recommend[/]")
    else:
        console.print(
            f"[bold]best: trial {best.number}[/] {best.score:.3f}× {report.score_name} "
            f"({escape(best.note)})"
        )
        if report.confirm is not None:
            unit = "×" if report.score_name == "mean speedup" else ""
            for line in confirm_lines(report.confirm, unit):
                console.print(line, soft_wrap=True)
        launch = report.confirm.pick_command if report.confirm else None
        console.print(f"launch: {escape(launch or best.launch)}", soft_wrap=True)
    console.print(f"tune.json: {folder}/tune.json")
