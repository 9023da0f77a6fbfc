"""Console output of ``harness compare``: the comparison's sections (``compare/views.py``)."""

from __future__ import annotations

from rich.console import Console

from harness.compare.model import CompareReport
from harness.compare.views import sections
from harness.view.console import print_sections


def render(console: Console, rep: CompareReport) -> None:
    print_sections(console, sections(rep))
