"""Console rendering of a VLM run: the progress hooks, then its sections (``vlm/views.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness.view.console import print_sections
from harness.vlm.hooks import VlmHooks
from harness.vlm.report import VlmReport, VlmSample
from harness.vlm.views import sections


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


def render_vlm(console: Console, rep: VlmReport, where: str) -> None:
    print_sections(console, sections(rep))
    console.print(f"wrote vlm.json + result.json in {where}")


def console_hooks(console: Console, profile: str) -> VlmHooks:
    """The kind record's console hooks (harness/kinds/record.py: ``KindConsole``)."""
    return ConsoleHooks(console)
