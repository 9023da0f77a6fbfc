"""A run folder's reports, typed, through the one reader (``harness.report_base.load_report``).

``report`` must show whatever a run left behind: a missing file is simply
absent, and a file this harness cannot read (broken JSON, another schema, a
newer version) is noted in ``problems`` and never raised. Older schema
versions are migrated by the reader. The fields ``report`` takes from each
report are listed in docs/report.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import HarnessError, UsageError
from harness.gate.report import GateReport
from harness.registry import KINDS
from harness.report_base import R, Report, load_report

# The reports ``harness report`` reads, in display order: every measurement kind's
# (harness/registry/), then the gate's verdict.
REPORT_KINDS: tuple[type[Report], ...] = (*(k.report for k in KINDS), GateReport)
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
            # what to do, when the reader has no better advice than this
            hint = err.hint or "re-run the command that wrote it, or move the file away"
            run.problems.append(f"{err.message} — {hint}")
            continue
        if report is not None:
            run.reports[kind.FILENAME] = report
    return run


def not_a_folder(folder: Path, what: str = "run folder") -> UsageError:
    """The one-line error for a ``RUN_DIR`` that is missing or a file."""
    if folder.exists():
        return UsageError(
            f"{folder}: a file, not a {what}", hint="pass the folder that holds the reports"
        )
    return UsageError(
        f"{folder}: no such {what}", hint="pass a folder under reports/ (harness report lists them)"
    )


def is_run_folder(folder: Path) -> bool:
    return folder.is_dir() and any((folder / name).is_file() for name in REPORT_FILES)
