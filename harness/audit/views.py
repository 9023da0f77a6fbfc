"""What an audit shows, as view models: one row per rule, the verdict, what fails it."""

from __future__ import annotations

from harness.audit.evidence import rule_text
from harness.audit.gate_rules import sample_items_line
from harness.audit.report import AuditReport
from harness.engines.read import saved
from harness.rule_report import RuleResult, RuleVerdict
from harness.view.model import Cell, Column, Section, Tone, section, table, text

TONE: dict[RuleResult, Tone] = {
    RuleResult.PASS: "good",
    RuleResult.FAIL: "bad",
    RuleResult.INCONCLUSIVE: "warn",
}


def result_cell(v: RuleVerdict) -> Cell:
    label = v.result.value.upper()
    if v.result is RuleResult.INCONCLUSIVE and v.by_design:
        label += " (by design)"
    return Cell(label, TONE[v.result])


def title(rep: AuditReport) -> str:
    """The server and every route the audit sent to, the timed one first."""
    if len(rep.routes) < 2:
        return f"harness audit — {rep.url}{rep.endpoint}"
    return f"harness audit — {rep.url}: {rep.routes[0]} (timed), {', '.join(rep.routes[1:])}"


def _tone(rep: AuditReport) -> Tone:
    if not rep.ok:
        return "bad"
    return "warn" if rep.broken() or not rep.complete or not rep.rules else "good"


def sections(rep: AuditReport) -> list[Section]:
    rows: list[list[Cell | str]] = [[v.rule, result_cell(v), v.why] for v in rep.rules]
    cols = [Column("rule", "left"), Column("result", "left"), Column("why", "left", wrap=True)]
    counted = saved(rep.counters, "requests")
    failed = rep.failed()
    counters = (
        f"server counters: {counted:.0f} requests counted of {rep.answered()} answered"
        + (f" ({failed} failed, not compared)" if failed else "")
        if counted is not None
        else f"server counters: {rep.counters_note or 'none exported'}"
    )
    return [
        section(
            "audit",
            "Contest rules",
            table("audit", title(rep), cols, rows),
            text(rep.summary_line(), rep.exit_reason(), tone=_tone(rep)),
            text(*(f"✗ {v.rule}: {v.why}" for v in rep.failing()), tone="bad"),
            text(*([sample_items_line(rep.sample_items)] * bool(rep.sample_items)), tone="warn"),
            # an in-process audit (vlm audit) has no URL, no heads and no counters' server
            text(counters, *([f"unique heads' seed {rep.seed}"] * bool(rep.url)), tone="dim"),
        )
    ]


def evidence(rep: AuditReport) -> Section:
    """report.html's "What each rule rests on": per rule, its title, result, why, its
    evidence in plain words and where docs/audit.md explains it (harness/audit/evidence.py;
    the console shows the rules' table only)."""
    blocks = [
        text(*rule_text(v), tone=TONE[v.result] if v.blocking else "plain") for v in rep.rules
    ]
    return section("audit-evidence", "What each rule rests on", *blocks)


def page(rep: AuditReport) -> list[Section]:
    """The audit's sections for report.html: the rules' table, then their evidence."""
    return [*sections(rep), evidence(rep)]
