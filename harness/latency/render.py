"""Console rendering of latency runs: live progress and the final tables."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from harness.attribution import section_lines
from harness.console_hooks import SpinnerAndBars
from harness.latency.core import LatencyHooks
from harness.latency.report import BucketResult, LatencyReport, RequestRow
from harness.latency.sequential import Look
from harness.profiles import Bucket


def _ms(v: float | None) -> str:
    return "—" if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def _x(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}×"


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
        self._stats = ""
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
        self._stats = f"last {last:>10}  {med}"
        self._done += 1
        self.progress.update(self._task, advance=1, stats=self._stats)  # type: ignore[arg-type]

    def on_look(self, row: RequestRow, look: Look, pct: float) -> None:
        """--until-ci: the interval's half-width on the bucket's line; the bar ends when narrow."""
        width = "—" if look.half_width_pct is None else f"±{look.half_width_pct:.2f} %"
        stats = f"{self._stats}  CI {width} (target ±{pct:g} %)"
        if look.narrow:
            stats += "  stopped: narrow enough"
            self.progress.update(self._task, total=self._done, stats=stats)  # type: ignore[arg-type]
        else:
            self.progress.update(self._task, stats=stats)  # type: ignore[arg-type]

    @contextmanager
    def live(self) -> Iterator[LatencyProgress]:
        with self.progress:
            yield self


def bucket_table(title: str, buckets: list[BucketResult], strict: bool) -> Table:
    t = Table(title=title, title_justify="left")
    cols = ["bucket", "prompt", "output", "ok/fail", "baseline", "median ms", "95% CI", "speedup"]
    if strict:
        cols += ["TTFT p50", "TPOT p50", "ITL p99", "lag p99"]
    for col in cols:
        t.add_column(col, justify="left" if col == "bucket" else "right")
    for b in buckets:
        ci = f"{_ms(b.median_ci95[0])}–{_ms(b.median_ci95[1])}" if b.median_ci95 else "—"
        out = "—" if b.output_tokens_mean is None else f"{b.output_tokens_mean:.0f}/{b.max_tokens}"
        if b.n_short_outputs:
            out = f"[yellow]{out}[/]"
        cells = [
            b.name,
            f"{b.prompt_tokens if b.prompt_tokens is not None else '—'}",
            out,
            f"{b.n_ok}/{b.n_failed}" if not b.n_failed else f"[red]{b.n_ok}/{b.n_failed}[/]",
            _ms(b.baseline_ms),
            _ms(b.median_ms),
            ci,
            _x(b.speedup),
        ]
        if strict:
            cells += [
                _ms(b.ttft.median if b.ttft else None),
                _ms(b.tpot.median if b.tpot else None),
                _ms(b.itl.p99 if b.itl else None),
                _ms(b.dispatch_lag.p99 if b.dispatch_lag else None),
            ]
        t.add_row(*cells)
    return t


def render_report(console: Console, rep: LatencyReport, folder: str) -> None:
    if rep.official:
        early = any(b.until_ci is not None and b.until_ci.stopped_early for b in rep.official)
        how = "stopped early by --until-ci: an estimate" if early else "grader's procedure"
        console.print(
            bucket_table(f"official ({rep.official[0].endpoint}, {how})", rep.official, False)
        )
    if rep.strict:
        console.print(
            bucket_table(
                f"strict ({rep.strict[0].endpoint}, streamed, unique prompts)", rep.strict, True
            )
        )
    if rep.gaps:
        g = Table(title="official vs strict", title_justify="left")
        for col in ("bucket", "official", "strict", "share of speedup", "likely cause"):
            g.add_column(col)
        for gap in rep.gaps:
            share = (
                "—"
                if gap.share_of_official_speedup is None
                else f"{gap.share_of_official_speedup:.0%}"
            )
            g.add_row(
                gap.bucket, _x(gap.official_speedup), _x(gap.strict_speedup), share, gap.cause
            )
        console.print(g)
    for b in [*rep.official, *rep.strict]:
        if b.until_ci is not None:
            u = b.until_ci
            interval = (
                f"{_ms(u.interval_ms[0])}–{_ms(u.interval_ms[1])} ms" if u.interval_ms else "none"
            )
            console.print(f"until-ci {b.mode} {b.name}: {interval}; {u.why}", markup=False)
    ci = f" (95% CI {rep.score_ci95[0]:.2f}–{rep.score_ci95[1]:.2f})" if rep.score_ci95 else ""
    label = "score (mean speedup)" if rep.official else "strict score (mean speedup)"
    console.print(
        f"[bold]{label}: {_x(rep.score)}{ci}[/]"
        + ("" if rep.complete else "  [red](partial run)[/]")
    )
    if rep.strict_score is not None:
        console.print(f"strict score: {_x(rep.strict_score)}")
    if rep.calibration and rep.calibration.ttft_error_ms.n:
        c = rep.calibration.ttft_error_ms
        console.print(
            f"client timing error (self-test): median {c.median:.2f} ms, p99 {c.p99:.2f} ms"
        )
    for flag in rep.flags:
        console.print(f"[yellow]⚠ {flag.text}[/]")
    if rep.attribution is not None:
        for line in section_lines(rep.attribution):
            console.print(f"attribution: {line}", markup=False)
    console.print(f"report: {folder}/latency.json")


class ConsoleHooks(SpinnerAndBars, LatencyHooks):
    """A latency run on a rich console: readiness spinner, live bars, the partial-save line."""

    bars: LatencyProgress

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bars = LatencyProgress(console)

    def repeat(self, index: int, total: int) -> None:
        self.console.print(f"[bold]repeat {index}/{total}[/]")

    def bucket(self, mode: str, bucket: Bucket) -> None:
        self.bars.on_bucket(mode, bucket)

    def row(self, row: RequestRow, total: int) -> None:
        self.bars.on_row(row, total)

    def look(self, row: RequestRow, look: Look, pct: float) -> None:
        self.bars.on_look(row, look, pct)

    def partial(self, path: Path) -> None:
        print(f"harness: partial latency report saved: {path}", file=sys.stderr)
