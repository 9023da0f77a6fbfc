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
from harness.report.table import fmt_time, status
from harness.report_base import Report
from harness.view import fmt
from harness.view.model import Section, Table, facts, section, table, text


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


def vlm_summary(v: dict[str, object]) -> str:
    def f(x: object, spec: str = ".3f") -> str:
        return format(x, spec) if isinstance(x, int | float) else fmt.DASH

    raw = v.get("terms")
    terms: list[object] = list(raw) if isinstance(raw, list) else []
    t = " + ".join(f(x) for x in terms) if terms else fmt.DASH
    return (
        f"avg TTFT {f(v.get('avg_ttft_ms'), '.2f')} ms, {f(v.get('avg_tok_s'), '.2f')} tok/s over "
        f"{v.get('counted')}/{v.get('samples')} samples; accuracy ({v.get('accuracy_name')}) "
        f"{f(v.get('accuracy'))}; score {f(v.get('score'))} = {t}"
    )


def summary(e: LedgerEntry) -> Section:
    """The run at a glance: what, where, when, and each kind's headline number."""
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
    if e.score is not None:
        pairs.append(("score", fmt.times(e.score) + (f" ({e.score_mode})" if e.score_mode else "")))
        pairs.append(("score 95% CI", fmt.span(e.score_ci95, fmt.times)))
    if e.strict_score is not None:
        pairs.append(("strict score", fmt.times(e.strict_score)))
    if e.checks_total is not None:
        pairs.append(("checks failed", f"{e.checks_failed}/{e.checks_total}"))
    if e.throughput_score is not None:
        pairs.append(("throughput score", f"{e.throughput_score:,.1f} tok/s"))
    if e.vlm is not None:
        pairs.append(("AICAS VLM", vlm_summary(e.vlm)))
    return section(
        "run",
        "Run",
        facts("run", "", pairs),
        text(*e.problems, tone="bad", bullets=True, prefix="unreadable: "),
    )


def quality_scores(e: LedgerEntry) -> Table:
    """The ledger's quality scores of one run (the ledger page's latest run)."""
    rows = [
        [
            q.title,
            q.metric or fmt.DASH,
            fmt.num(q.score, ".3f"),
            fmt.num(q.threshold, ".3f"),
            str(q.n),
            fmt.yes_no(q.passed, "pass", "fail"),
        ]
        for q in e.quality
    ]
    cols = ["benchmark", "metric", "score", "threshold", "n", "gate"]
    limit = "" if e.quality_limit is None else f" (limit {e.quality_limit:g})"
    return table("latest-quality", f"quality{limit}", cols, rows, left=["benchmark", "metric"])
