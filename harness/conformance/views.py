"""What a check run shows, as view models: one row per check, the verdict, what blocks it."""

from __future__ import annotations

from harness.conformance.report import Check, CheckReport, Result
from harness.view.model import Cell, Column, Section, Tone, section, table, text

TONE: dict[Result, Tone] = {
    Result.PASS: "good",
    Result.FAIL: "bad",
    Result.WARN: "warn",
    Result.SKIP: "dim",
}


def result_cell(check: Check) -> Cell:
    label = check.result.value.upper()
    if check.result is Result.FAIL and not check.required:
        label += " (not required)"
    return Cell(label, TONE[check.result])


def sections(rep: CheckReport) -> list[Section]:
    rows = [[c.name, "●" if c.required else "", result_cell(c), c.reason] for c in rep.checks]
    cols = [Column("check", "left"), Column("req", "center"), Column("result", "left")]
    cols.append(Column("reason", "left", wrap=True))
    return [
        section(
            "check",
            "Conformance checks",
            table("check", f"harness check — {rep.url}", cols, rows),
            text(rep.summary_line(), tone="good" if rep.ok else "bad"),
            text(*(f"✗ {c.name}: {c.reason}" for c in rep.failing_required()), tone="bad"),
            text(f"model {rep.model}, tokenizer {rep.tokenizer}", tone="dim"),
        )
    ]
