"""Console output for ``harness quality``: a progress bar per benchmark and the result tables."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from harness.profiles import Benchmark
from harness.quality.report import DecideRecord, QualityReport


class RichProgress:
    """One rich task per benchmark: done/total, requests/s, ETA."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("{task.description:<14}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>6} req/s"),
            TextColumn("cached {task.fields[cached]} failed {task.fields[failed]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )

    def __enter__(self) -> RichProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def sink(self, bench: Benchmark) -> _Sink:
        return _Sink(self.progress, bench.title)


class _Sink:
    def __init__(self, progress: Progress, title: str) -> None:
        self.progress = progress
        self.title = title
        self.task: TaskID | None = None
        self.cached = self.failed = 0

    def start(self, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task(
                self.title, total=total, rate="-", cached=0, failed=0
            )
        else:  # lm-eval may call generate_until more than once per benchmark
            current = self.progress.tasks[self.task].total or 0
            self.progress.update(self.task, total=current + total)

    def advance(self, *, cached: bool, failed: bool) -> None:
        if self.task is None:
            self.start(0)
        assert self.task is not None
        self.cached += cached
        self.failed += failed
        task = self.progress.tasks[self.task]
        speed = task.speed
        self.progress.update(
            self.task,
            advance=1,
            rate=f"{speed:.2f}" if speed else "-",
            cached=self.cached,
            failed=self.failed,
        )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def decide_line(d: DecideRecord) -> str:
    """One line for a ``--decide`` record: documents asked, projection, decision, risk."""
    head = f"--decide asked {d.asked} of {d.total} documents"
    if d.settled_by == "complete":
        return f"{head}: every one, the score is the full set's ({d.decision.upper()})"
    if d.settled_by == "certain":
        why = "certain (no answer of the rest can change it)"
    elif d.settled_by == "risk":
        why = f"risk {d.risk or 0:.2g} < {d.alpha:g} that the full set lands on the other side"
    else:
        why = "the grader's run would abort"
    return (
        f"{head}, projected {d.projected:.4f} (95 % interval {d.ci_low:.4f}-{d.ci_high:.4f}): "
        f"{d.decision.upper()}, {why}; an estimate: re-run without --decide, same --out, "
        "to complete it from the answer cache"
    )


def render_report(console: Console, report: QualityReport) -> None:
    table = Table(title=f"quality — {report.url}{report.endpoint}", title_justify="left")
    for col, right in (
        ("benchmark", False),
        ("score", True),
        ("gate", True),
        ("verdict", False),
        ("n", True),
        ("think", False),
        ("max_tok", True),
        ("wall s", True),
        ("conc", True),
        ("errors", True),
    ):
        table.add_column(col, justify="right" if right else "left", no_wrap=True)
    for b in report.benchmarks:
        verdict = "[red]ERROR[/]" if b.error else ("[green]PASS[/]" if b.passed else "[red]FAIL[/]")
        table.add_row(
            b.title,
            _fmt(b.judged_score, 4),  # the grader's round(score, 4), the one judged
            f"{b.threshold:.3f}",
            verdict,
            str(b.n),
            "on" if b.thinking else "off",
            str(b.max_tokens_sent or "-"),
            f"{b.wall_s:.1f}",
            f"{b.concurrency_max}/{b.concurrency_mean:.1f}",
            f"{b.errors}/{b.requests}",
        )
    console.print(table)
    for b in report.benchmarks:
        console.print(
            f"{b.title}: {b.metric} (client {b.client}); {b.cached} answers from the resume "
            f"cache, {b.retries} retries, {b.empty_answers} empty answers"
            + (f", errors {b.error_kinds}" if b.error_kinds else "")
        )
        if b.decide is not None:
            console.print(f"[yellow]{b.title}: {decide_line(b.decide)}[/]")
        if b.error:
            console.print(f"[red]{b.title}: {b.error}[/]")
        if b.grader_abort:
            console.print(
                f"[red]{b.title}: {b.grader_abort} ({b.grader_aborts} requests; harness's own "
                f"score {_fmt(b.score, 4)})[/]"
            )
        if b.subtasks:
            sub = Table(title=f"{b.title} per subject ({b.metric})", title_justify="left")
            sub.add_column("subject")
            sub.add_column("score", justify="right")
            for name, value in b.subtasks.items():
                sub.add_row(name, _fmt(value))
            console.print(sub)
        if b.other_metrics:
            extra = ", ".join(f"{k} {v:.3f}" for k, v in sorted(b.other_metrics.items()))
            console.print(f"{b.title} other metrics: {extra}")
        if b.thinking_stats:
            t = b.thinking_stats
            console.print(
                f"{b.title} thinking: {t.lost_to_budget}/{t.answers} answers lost to the think "
                f"budget, {t.extracted} answers extracted, mean think tokens "
                f"{_fmt(t.think_tokens_mean, 0)}"
            )
    if report.non_official:
        console.print(f"[yellow]NON-OFFICIAL settings: {report.non_official}[/]")
    verdict = {True: "[green]PASS[/]", False: "[red]FAIL[/]", None: "[yellow]INCOMPLETE[/]"}[
        report.passed
    ]
    console.print(f"quality: {verdict} in {report.wall_s:.1f} s")
