"""Console rendering of a VLM run: its sections (``vlm/views.py``), then where they went."""

from __future__ import annotations

from rich.console import Console

from harness.view.console import print_sections
from harness.vlm.report import VlmReport
from harness.vlm.views import sections


def render_vlm(console: Console, rep: VlmReport, where: str) -> None:
    print_sections(console, sections(rep))
    console.print(f"wrote vlm.json + result.json in {where}")
