"""A tune folder shown by ``harness report TUNE_DIR``: the tune's sections (harness/tune/show/views.py) on the
console and in ``TUNE_DIR/report.html``, through the report package's HTML helpers.

The report package (a lower layer) never imports tune; the report command asks this
module when the folder it is given holds a ``tune.json``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from harness import __version__
from harness.errors import HarnessError
from harness.report import html
from harness.report_base import load_report
from harness.tune.record.report import TuneReport
from harness.tune.show.importance import param_importance
from harness.tune.show.views import sections
from harness.tune.space import Space, load_space
from harness.tune.study.tune_folder import SPACE_COPY
from harness.view.console import print_sections
from harness.view.model import Section


def _space(folder: Path) -> Space | None:
    try:
        return load_space(folder / SPACE_COPY)
    except HarnessError:
        return None


def tune_sections(folder: Path) -> tuple[TuneReport, list[Section]]:
    """The folder's tune.json as sections; a ConfigError when it cannot be read."""
    report = load_report(folder, TuneReport)
    if report is None:
        raise HarnessError(f"{folder}: no {TuneReport.FILENAME}")
    return report, sections(report, folder, param_importance(report, _space(folder)))


def tune_page(report: TuneReport, parts: list[Section], *, now: datetime | None = None) -> str:
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return html.page(
        f"harness — tune {report.name}",
        f"{len(report.trials)} trial(s) · generated {when} by harness {__version__}",
        [html.sections(parts)],
    )


def show_tune(console: Console, folder: Path, html_path: Path | None) -> TuneReport:
    """Print the tune's sections and, given a path, write its page there."""
    report, parts = tune_sections(folder)
    print_sections(console, parts, titles=True)
    if html_path is not None:
        html.write_page(html_path, tune_page(report, parts))
        console.print(f"report: {html_path}")
    return report
