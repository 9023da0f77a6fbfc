"""The sections of one run: its summary, each report's own views, the saved comparison.

``kind_sections`` finds a report's views in the measurement-kind registry (each
record's ``views``: its package's ``views.sections``); the gate's verdict and the
saved comparison are not kinds and bring their own (gate/views.py, compare/views.py).
"""

from __future__ import annotations

from pathlib import Path

from harness.compare import views as compare_views
from harness.compare.load import load_compare
from harness.errors import HarnessError
from harness.gate import views as gate_views
from harness.gate.report import GateReport
from harness.registry import KINDS
from harness.report.entry import LedgerEntry
from harness.report.folder import RunFiles
from harness.report.parts import summaries
from harness.report.table import fmt_time, status
from harness.report_base import Report
from harness.view import fmt
from harness.view.model import Section, facts, section, text


def kind_sections(rep: Report) -> list[Section]:
    """A report's own sections: its kind's record's ``views`` (harness/registry/),
    the gate's verdict from gate/views.py."""
    if isinstance(rep, GateReport):
        return gate_views.sections(rep)
    for kind in KINDS:
        if kind.views is not None and isinstance(rep, kind.report):
            return kind.views(rep)
    return []


def compare_sections(folder: Path) -> list[Section]:
    """The comparison saved in ``folder`` (by ``harness compare A folder``); none: no section."""
    try:
        rep = load_compare(folder)
    except HarnessError as err:
        return [section("compare", "Compare", text(err.one_line(), tone="bad", bullets=True))]
    return [] if rep is None else compare_views.sections(rep)


def run_sections(run: RunFiles) -> list[Section]:
    """Every report the folder holds, the verdict first (then the reader's order), then compare."""
    reports = sorted(run.reports.values(), key=lambda r: not isinstance(r, GateReport))
    return [s for rep in reports for s in kind_sections(rep)] + compare_sections(run.folder)


def summary(e: LedgerEntry) -> Section:
    """The run at a glance: what, where, when, and each kind's headline numbers."""
    pairs: list[tuple[str, str]] = [
        ("run", e.id),
        ("name", e.name or fmt.DASH),
        ("note", e.note or fmt.DASH),
        ("profile", e.profile or fmt.DASH),
        ("server", e.server.label()),
        ("started", fmt_time(e.time)),
        ("reports", ", ".join(e.reports) or fmt.DASH),
        ("status", status(e) + ("" if e.complete else " (partial reports)")),
    ]
    # each kind's lines (harness/view/summary.py), the ranked score's first
    first = sorted(summaries(), key=lambda ks: ks[1].ranked is None)
    pairs += [pair for k, s in first for pair in s.facts(e.parts[k.name])]
    return section(
        "run",
        "Run",
        facts("run", "", pairs),
        text(*e.problems, tone="bad", bullets=True, prefix="unreadable: "),
    )
