"""Console rendering of latency runs: live progress and the final tables."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from harness.client.failure import describe
from harness.console_hooks import SpinnerAndBars
from harness.latency.config import LatencyConfig
from harness.latency.hooks import LatencyHooks
from harness.latency.report import LatencyReport, RequestRow
from harness.latency.resume import Resumption
from harness.latency.until_ci import AnyLook
from harness.latency.views import sections
from harness.profiles import Bucket
from harness.prompts import seed_line
from harness.view import fmt
from harness.view.console import print_sections


def look_words(look: AnyLook, pct: float) -> str:
    """One look on the progress line: the statistic, its value and its interval's sides."""
    value = "—" if look.value is None else f"{look.value:,.0f} ms"
    ci = "—" if look.lo is None or look.hi is None else fmt.around(look.value, (look.lo, look.hi))
    return f"{look.at} {value}, CI {ci} (target ±{pct:g} %)"


class LatencyProgress:
    """One progress bar per (mode, bucket, phase): n/N, last latency, running median, ETA."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
        )
        self._task: object = None
        self._key: tuple[str, str, str] | None = None
        self._e2e: list[float] = []
        self._mode = ""
        self._bucket = ""
        self._done = 0

    def on_bucket(self, mode: str, bucket: Bucket) -> None:
        self._mode, self._bucket = mode, bucket.name

    def on_row(self, row: RequestRow, total: int) -> None:
        key = (row.mode, row.bucket, row.phase)
        if key != self._key:
            self._key = key
            self._e2e = []
            self._done = 0
            label = f"{row.mode:8} {row.bucket:6} {row.phase:6}"
            self._task = self.progress.add_task(label, total=total, stats="")
        if row.ok and row.e2e_ms is not None:
            self._e2e.append(row.e2e_ms)
        last = (
            f"{row.e2e_ms:,.0f} ms"
            if row.ok and row.e2e_ms is not None
            else (row.error_kind or "error")
        )
        med = f"median {statistics.median(self._e2e):,.0f} ms" if self._e2e else ""
        stats = f"last {last:>10}  {med}"
        self._done += 1
        self.progress.update(self._task, advance=1, stats=stats)  # type: ignore[arg-type]

    def on_look(self, row: RequestRow, look: AnyLook, pct: float) -> None:
        """--until-ci: the statistic it stops on, its interval's two sides and the target on
        the bucket's line (``p90 150 ms, CI −0.62 % / +1.00 % (target ±1 %)``); the bar ends
        when narrow."""
        stats = look_words(look, pct)  # in place of last/median: the line stays one line
        if look.narrow:
            stats += "  stopped: narrow enough"
            self.progress.update(self._task, total=self._done, stats=stats)  # type: ignore[arg-type]
        else:
            self.progress.update(self._task, stats=stats)  # type: ignore[arg-type]

    @contextmanager
    def live(self) -> Iterator[LatencyProgress]:
        with self.progress:
            yield self


def render_report(console: Console, rep: LatencyReport, folder: str) -> None:
    print_sections(console, sections(rep))
    console.print(f"report: {folder}/latency.json")


def target_failure(rep: LatencyReport) -> str | None:
    """The one line a run whose bucket never succeeded ends with (exit 3): which bucket, and
    its first failure in the server's words with what to do (client/failure.py)."""
    for b in rep.buckets():
        if b.n_ok:
            continue
        failed = [
            r
            for r in rep.requests
            if r.bucket == b.name and r.mode == b.mode and r.phase == "timed" and not r.ok
        ]
        first = failed[0] if failed else None
        said = (
            describe(first.status, first.error, first.error_body, endpoint=b.endpoint)
            if first is not None
            else "no request was answered"
        )
        return f"every timed {b.mode} {b.name} request failed: {said}"
    return None


class ConsoleHooks(SpinnerAndBars, LatencyHooks):
    """A latency run on a rich console: readiness spinner, live bars, the partial-save line."""

    bars: LatencyProgress

    def __init__(self, console: Console, *, resume_hint: str = "") -> None:
        self.console = console
        self.bars = LatencyProgress(console)
        self.resume_hint = resume_hint  # the command that finishes this run in its folder

    def resuming(self, record: Resumption) -> None:
        kept = ", ".join(record.kept) or "none"
        again = ", ".join(record.remeasured)
        self.console.print(
            f"resuming: kept {kept} ({record.requests_kept} requests)"
            + (f"; cut in the middle, measured again whole: {again}" if again else "")
        )

    def repeat(self, index: int, total: int) -> None:
        self.console.print(f"[bold]repeat {index}/{total}[/]")

    def seed(self, cfg: LatencyConfig) -> None:
        if cfg.mode != "official":
            self.console.print(seed_line(cfg.seed, cfg.seed_drawn))

    def bucket(self, mode: str, bucket: Bucket) -> None:
        self.bars.on_bucket(mode, bucket)

    def row(self, row: RequestRow, total: int) -> None:
        self.bars.on_row(row, total)

    def look(self, row: RequestRow, look: AnyLook, pct: float) -> None:
        self.bars.on_look(row, look, pct)

    def partial(self, path: Path) -> None:
        print(f"harness: partial latency report saved: {path}", file=sys.stderr)
        if self.resume_hint:
            print(f"harness: resume with: {self.resume_hint}", file=sys.stderr)


def console_hooks(console: Console, profile: str) -> LatencyHooks:
    """The kind record's console hooks (harness/kinds/record.py: ``KindConsole``)."""
    return ConsoleHooks(console)
