"""throughput.png beside throughput.json: the report's per-level chart, drawn once more to a file."""

from __future__ import annotations

from pathlib import Path

from harness.throughput.report import ThroughputReport
from harness.throughput.views import level_chart
from harness.view.draw import save_png

CHART_FILE = "throughput.png"


def write_chart(report: ThroughputReport, folder: Path) -> Path | None:
    """The chart of :func:`level_chart`; None when nothing was measured."""
    chart = level_chart(report)
    return None if chart is None else save_png(chart, folder / CHART_FILE)
