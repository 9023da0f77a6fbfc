"""The ledger table: one view model (console and HTML render the same cells)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from harness.report.board import arrange
from harness.report.entry import LedgerEntry, entry_for_folder
from harness.report.frontier import frontier
from harness.report.render import render_ledger, render_run
from harness.report.table import ledger_table, status
from harness.view.console import rich_table
from harness.view.model import Table
from tests.unit.test_report_data import make_history


def headers(t: Table) -> list[str]:
    return [c.header for c in t.columns]


def cells(t: Table) -> list[list[str]]:
    return [[c.text for c in r.cells] for r in t.rows]


def entries(root: Path) -> list[LedgerEntry]:
    return [entry_for_folder(f) for f in make_history(root)]


def test_table_is_newest_first_with_the_best_marked(tmp_path: Path) -> None:
    es = entries(tmp_path)
    best = frontier(es).best
    assert best is not None
    t = ledger_table(es, best.id)
    assert headers(t) == [
        "time", "run", "note", "verdict", "score", "short", "medium", "long",
        "MMLU-Pro", "IFEval", "GPQA-Diamond", "status",
    ]  # fmt: skip
    assert cells(t) == [
        ["01-04 10:00", "spec", "—", "PASS", "★ 2.50×", "1,033", "2,176", "2,630",
         "0.71✓", "0.86✓", "0.62✓", "risky ×1"],
        ["01-03 10:00", "int3", "—", "FAIL", "3.00×", "860", "1,800", "2,200",
         "0.66✗", "0.86✓", "0.52✗", "invalid"],
        ["01-02 10:00", "awq", "—", "PASS", "2.00×", "1,291", "2,720", "3,288",
         "0.71✓", "0.86✓", "0.62✓", "valid"],
        ["01-01 10:00", "base", "—", "PASS", "1.00×", "2,582", "5,441", "6,576",
         "0.71✓", "0.86✓", "0.62✓", "valid"],
    ]  # fmt: skip
    assert [r.tone for r in t.rows] == ["strong", "plain", "plain", "plain"]
    assert [r.cells[3].tone for r in t.rows] == ["good", "bad", "good", "good"]  # verdicts


def test_missing_values_are_dashes_and_names_win_over_ids() -> None:
    bare = LedgerEntry(id="20260101-100000-latency", time="2026-01-01T10:00:00+00:00")
    named = LedgerEntry(
        id="x", name="my run", note="tp=2", time="2026-01-02T10:00:00+00:00", verdict="INCOMPLETE"
    )
    t = ledger_table([bare, named], None)
    assert headers(t) == ["time", "run", "note", "verdict", "score", "status"]
    assert cells(t) == [
        ["01-02 10:00", "my run", "tp=2", "INCOMPLETE", "—", "incomplete"],
        ["01-01 10:00", "latency", "—", "—", "—", "not gated"],
    ]


def test_status_words() -> None:
    def e(verdict: str | None, flags: list[str]) -> LedgerEntry:
        return LedgerEntry.model_validate(
            {"id": "r", "time": "t", "verdict": verdict, "flags": flags}
        )

    assert [
        status(e("PASS", [])),
        status(e("PASS", ["a", "b"])),
        status(e("FAIL", ["a"])),
        status(e(None, ["a"])),
        status(e("INCOMPLETE", ["a"])),
    ] == ["valid", "risky ×2", "invalid, risky ×1", "not gated, risky ×1", "incomplete"]


def test_user_text_is_not_rich_markup() -> None:
    e = LedgerEntry(id="r", name="[red]x[/red]", note="[bold]", time="2026-01-01T10:00:00+00:00")
    out = io.StringIO()
    Console(file=out, width=200).print(rich_table(ledger_table([e], None, "ledger")))
    assert "[red]x[/red]" in out.getvalue() and "[bold]" in out.getvalue()


def test_console_output_names_the_best_and_a_runs_reasons(tmp_path: Path) -> None:
    folders = make_history(tmp_path)
    es = [entry_for_folder(f) for f in folders]
    out = io.StringIO()
    console = Console(file=out, width=160)
    render_ledger(console, arrange(es, tmp_path), "reports/ledger.jsonl")
    render_run(console, es[2], folders[2])
    text = out.getvalue()
    assert "★ best: 20260104-100000-spec 2.50× (frontier over runs that passed the gate)" in text
    assert "verdict: FAIL · invalid" in text
    # the run's sections, titled, as report.html shows them: summary, gate, latency, quality
    titles = ["Run", "Gate", "Latency", "Quality"]
    assert [t for t in titles if f"\n{t}\n" in text] == titles
    assert "GPQA-Diamond 0.520 < 0.60" in text
    assert "score (mean speedup): 3.00× (95% CI 2.70–3.31)" in text
    assert "2.70×–3.31×" in text  # the summary's score CI


def test_a_partial_run_says_so_beside_its_medians() -> None:
    cut = LedgerEntry(id="x", time="2026-01-02T10:00:00+00:00", complete=False)
    done = LedgerEntry(id="y", time="2026-01-01T10:00:00+00:00")
    t = ledger_table([cut, done], None)
    assert [row[-1] for row in cells(t)] == ["not gated, partial", "not gated"]
    assert [r.cells[-1].tone for r in t.rows] == ["warn", "plain"]
