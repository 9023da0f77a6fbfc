"""Console rendering of a VLM run: the progress hooks, the official figures, then harness's own."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness.vlm.core import VlmHooks
from harness.vlm.report import VlmReport, VlmSample


class ConsoleHooks(VlmHooks):
    """A VLM run on a rich console: one bar (loading → samples), the partial-save line."""

    def __init__(self, console: Console) -> None:
        self.live = not console.quiet  # --quiet: no bar, no refresh thread beside the runner
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[last]}"),
            console=console,
            transient=True,
        )
        self.task = self.progress.add_task("loading", total=None, last="")

    def loading(self) -> None:
        if self.live:
            self.progress.start()

    def measuring(self, samples: int) -> None:
        if self.live:
            self.progress.start()  # HTTP mode starts here (no loading step); a no-op if started
        self.progress.update(
            self.task, description="warm-up, then samples", total=samples or None, completed=0
        )

    def sample(self, sample: VlmSample) -> None:
        last = (
            f"ttft {sample.ttft_ms:.1f} ms, {sample.tok_s:.1f} tok/s"
            if sample.ttft_ms is not None
            else "failed"
        )
        self.progress.update(self.task, description="samples", advance=1, last=last)

    def partial(self, path: Path) -> None:
        self.close()
        print(f"harness: partial vlm.json and result.json saved: {path.parent}", file=sys.stderr)

    def close(self) -> None:
        self.progress.stop()


def _f(x: float | None, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


def render_vlm(console: Console, rep: VlmReport, where: str) -> None:
    t = Table(title=f"AICAS VLM ({rep.mode})", show_header=True)
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("harness's own", justify="left")
    ci = rep.ttft_ci_ms
    t.add_row(
        "avg_ttft_ms (official)",
        _f(rep.avg_ttft_ms),
        f"95% CI {_f(ci[0])}–{_f(ci[1])}" if ci else "",
    )
    ci = rep.tok_s_ci
    t.add_row(
        "avg_throughput_tokens_per_sec (official)",
        _f(rep.avg_throughput_tokens_per_sec),
        (f"95% CI {_f(ci[0])}–{_f(ci[1])}; " if ci else "")
        + f"total tokens / total time {_f(rep.total_tokens_per_sec)}",
    )
    t.add_row("samples counted / measured", f"{rep.counted}/{len(rep.samples)}", "")
    t.add_row("processor ms (outside TTFT)", _f(rep.processor_dist.mean), "mean")
    if rep.ttft_event_mean_ms is not None:
        t.add_row("TTFT by CUDA events, ms", _f(rep.ttft_event_mean_ms), "mean")
    if rep.ttft_ms_per_visual_token is not None:
        t.add_row("TTFT ms per visual token", _f(rep.ttft_ms_per_visual_token, ".4f"), "slope")
    if rep.accuracy:
        a = rep.accuracy
        t.add_row(
            f"accuracy ({a.headline}, headline)",
            _f(a.headline_value, ".3f"),
            f"vqa {_f(a.vqa, '.3f')}, containment {_f(a.containment, '.3f')}, "
            f"yes/no {_f(a.yes_no, '.3f')} (n={a.yes_no_n})",
        )
    for s in rep.scores:
        terms = f"{_f(s.accuracy_term, '.3f')} + {_f(s.ttft_term, '.3f')} + {_f(s.throughput_term, '.3f')}"
        ci_s = (
            f"; 95% CI {_f(s.score_ci[0], '.3f')}–{_f(s.score_ci[1], '.3f')}" if s.score_ci else ""
        )
        t.add_row(f"score vs {s.baseline}", _f(s.score, ".3f"), terms + ci_s)
    console.print(t)
    for f in rep.flags:
        console.print(f"[yellow]flag ({f.kind.value}):[/] {escape(f.text)}")
    console.print(f"wrote vlm.json + result.json in {where}")
