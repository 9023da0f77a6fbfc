"""Console rendering of a sweep: a progress bar per level and phase, then the tables."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.attribution import section_lines
from harness.client.records import RequestRecord
from harness.console_hooks import SpinnerAndBars
from harness.throughput.core import ThroughputHooks
from harness.throughput.report import Dist, Phase, ThroughputReport


def _n(v: float | None, fmt: str = ",.0f") -> str:
    return "—" if v is None else format(v, fmt)


class SweepProgress:
    """One bar per (level, phase): requests done, failures, live output tok/s."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            console=console,
        )
        self._task: object = None
        self._failed = 0
        self._chars = 0
        self._start_ns = 0

    def on_start(self, level: int, phase: str, total: int) -> None:
        self._failed = self._chars = 0
        self._start_ns = 0
        self._task = self.progress.add_task(f"c={level:<3} {phase:6}", total=total, stats="")

    def on_done(self, level: int, phase: str, rec: RequestRecord) -> None:
        if not self._start_ns:
            self._start_ns = rec.send_ns
        if rec.ok:
            self._chars += len(rec.text) + len(rec.reasoning)
        else:
            self._failed += 1
        secs = max(1e-9, ((rec.end_ns or rec.send_ns) - self._start_ns) / 1e9)
        # characters/4 is only a live estimate; the table shows verified token counts
        stats = f"~{self._chars / 4 / secs:,.0f} out tok/s"
        if self._failed:
            stats += f"  [red]{self._failed} failed[/]"
        self.progress.update(self._task, advance=1, stats=stats)  # type: ignore[arg-type]

    @contextmanager
    def live(self) -> Iterator[SweepProgress]:
        with self.progress:
            yield self


def _dist(d: Dist, fmt: str = ",.0f") -> str:
    return f"{_n(d.p50, fmt)} / {_n(d.p99, fmt)}" if d.n else "—"


def level_table(rep: ThroughputReport) -> Table:
    """What is scored: verified tok/s per level, its weight, and the spot checks."""
    t = Table(title=f"throughput ({rep.endpoint}, {rep.mode} mode)", title_justify="left")
    for col in ("c", "weight", "ok/fail", "wall s", "tok/s", "weighted", "out tok/s", "spot"):
        t.add_column(col, justify="left" if col == "c" else "right")
    for lv in rep.levels:
        fails = f"{lv.n_ok}/{lv.n_failed}"
        spot = f"{sum(s.passed for s in lv.spot_checks)}/{len(lv.spot_checks)}"
        t.add_row(
            str(lv.concurrency),
            f"{lv.weight:g}",
            f"[red]{fails}[/]" if lv.n_failed else fails,
            _n(lv.wall_s, ".1f"),
            _n(lv.tok_s),
            _n(lv.weighted),
            _n(lv.output_tok_s),
            spot if lv.spot_passed else f"[red]{spot}[/]",
        )
    return t


def detail_table(rep: ThroughputReport) -> Table:
    """What the grader does not show: lengths, latency, dispatch lag, concurrency reached."""
    t = Table(title="per level: requests and the client", title_justify="left")
    for col in (
        "c",
        "out tok/req p50 (max)",
        "e2e ms p50 / p99",
        "first wave ms",
        "lag ms p50 / p99 (steady)",
        "in flight mean/max",
        "client CPU",
        "usage ≠",
        "think",
    ):
        t.add_column(col, justify="left" if col == "c" else "right")
    for lv in rep.levels:
        out = lv.output_tokens_per_request
        t.add_row(
            str(lv.concurrency),
            f"{_n(out.p50)} ({_n(out.max)})",
            _dist(lv.e2e_ms),
            _n(lv.first_wave_ms, ".1f"),
            _dist(lv.dispatch_lag_steady_ms, ".2f"),
            f"{lv.concurrency_mean:.1f}/{lv.concurrency_max}",
            "—" if lv.client_busy is None else f"{lv.client_busy:.0%}",
            f"[yellow]{lv.usage_mismatches}[/]" if lv.usage_mismatches else "0",
            f"[red]{lv.think_tags}[/]" if lv.think_tags else "0",
        )
    return t


def render_report(console: Console, rep: ThroughputReport, folder: str) -> None:
    console.print(level_table(rep))
    console.print(detail_table(rep))
    score = _n(rep.score)
    note = "" if rep.score_complete else " (measured levels only)"
    if not rep.official:
        note += " [yellow]non-official settings: " + escape(
            ", ".join(f"{k}={v}" for k, v in rep.non_official.items())
        )
        note += "[/]"
    console.print(f"[bold]weighted score: {score} tok/s[/]{note}")
    if rep.passed is not None:
        console.print("[green]PASS[/]" if rep.passed else "[red]FAIL[/]")
    if rep.provenance.seed is not None:
        how = "drawn for this run" if rep.settings.get("seed_source") == "drawn" else "given"
        console.print(
            f"prompts: seed {rep.provenance.seed} ({how}; --seed {rep.provenance.seed} "
            "replays them)"
        )
    for flag in rep.flags:
        console.print(f"[yellow]⚠ {escape(flag.text)}[/]")
    for check in rep.usage_checks:
        if check.result != "disagrees":  # a disagreeing probe is a flag, printed above
            console.print(check.line(), markup=False)
    for line in rep.notes:
        console.print(f"note: {line}", markup=False)
    if rep.chart:
        console.print(f"chart: {folder}/{rep.chart}")
    if rep.attribution is not None:
        for line in section_lines(rep.attribution):
            console.print(f"attribution: {line}", markup=False)
    console.print(f"report: {folder}/throughput.json")


class ConsoleHooks(SpinnerAndBars, ThroughputHooks):
    """A sweep on a rich console: readiness spinner, live bars, the partial-save line."""

    bars: SweepProgress

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bars = SweepProgress(console)

    def level(self, level: int, phase: Phase, total: int) -> None:
        self.bars.on_start(level, phase, total)

    def done(self, level: int, phase: Phase, record: RequestRecord) -> None:
        self.bars.on_done(level, phase, record)

    def partial(self, path: Path) -> None:
        print(f"harness: partial throughput report saved: {path}", file=sys.stderr)
