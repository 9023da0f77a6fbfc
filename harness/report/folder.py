"""A run folder's reports, typed, through the one reader (``harness.runs.load_report``).

``report`` must show whatever a run left behind: a missing file is simply
absent, and a file this harness cannot read (broken JSON, another schema, a
newer version) is noted in ``problems`` and never raised. Older schema
versions are migrated by the reader. The fields ``report`` takes from each
report are listed in docs/report.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.conformance.model import CheckReport
from harness.errors import HarnessError
from harness.gate.report import GateReport
from harness.latency.report import LatencyReport
from harness.quality.report import QualityReport
from harness.runs import R, Report, load_report
from harness.throughput.report import ThroughputReport
from harness.vlm.report import VlmReport

# The report kinds ``harness report`` reads, in display order. A new kind is one line here.
REPORT_KINDS: tuple[type[Report], ...] = (
    CheckReport,
    LatencyReport,
    QualityReport,
    ThroughputReport,
    VlmReport,
    GateReport,
)
REPORT_FILES = tuple(kind.FILENAME for kind in REPORT_KINDS)


@dataclass
class RunFiles:
    """The typed reports of one run folder; ``problems`` lists the unreadable ones."""

    folder: Path
    reports: dict[str, Report] = field(default_factory=dict)  # by file name
    problems: list[str] = field(default_factory=list)

    def get(self, kind: type[R]) -> R | None:
        report = self.reports.get(kind.FILENAME)
        return report if isinstance(report, kind) else None

    @property
    def present(self) -> list[str]:
        return [f for f in REPORT_FILES if f in self.reports]


def read_run(folder: Path) -> RunFiles:
    """Read every known report in ``folder``; a broken file is noted, never raised."""
    run = RunFiles(folder=folder)
    for kind in REPORT_KINDS:
        try:
            report = load_report(folder, kind)
        except HarnessError as err:
            run.problems.append(err.one_line())
            continue
        if report is not None:
            run.reports[kind.FILENAME] = report
    return run


def is_run_folder(folder: Path) -> bool:
    return folder.is_dir() and any((folder / name).is_file() for name in REPORT_FILES)
