"""The ledger table as one view model: the console and report.html render the same cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from harness.report.eligibility import HIDDEN
from harness.report.entry import LedgerEntry
from harness.report.parts import summaries
from harness.view import fmt
from harness.view.model import Cell, Column, Row, Table, Tone
from harness.view.summary import LedgerColumn

BEST_MARK = "★"
VERDICT_TONE: dict[str, Tone] = {"PASS": "good", "FAIL": "bad", "INCOMPLETE": "warn"}
NOT_RANKED = "not ranked"  # the column saying why a run cannot be ★ (eligibility.py)
LEFT = ("time", "run", "server", "note", "status", NOT_RANKED)


def fmt_time(iso: str, *, short: bool = False) -> str:
    try:
        return datetime.fromisoformat(iso).strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M")
    except ValueError:
        return iso


def status(e: LedgerEntry) -> str:
    """valid / risky ×N / invalid / incomplete / not gated (risky: valid but carrying flags)."""
    risk = f"risky ×{len(e.flags)}" if e.flags else ""
    if e.verdict is None:
        return "not gated" + (f", {risk}" if risk else "")
    if e.verdict == "INCOMPLETE":
        return "incomplete"
    if e.valid:
        return risk or "valid"
    return "invalid" + (f", {risk}" if risk else "")


def kind_columns(entries: Sequence[LedgerEntry]) -> list[tuple[str, LedgerColumn[Any]]]:
    """(kind name, column) for every kind's columns over these runs, in the table's order."""
    details: list[tuple[str, LedgerColumn[Any]]] = []
    scores: list[tuple[str, LedgerColumn[Any]]] = []
    for k, s in summaries():
        parts = [e.parts[k.name] for e in entries]
        details += [(k.name, c) for c in s.columns(parts)]
        scores += [(k.name, c) for c in s.score_columns(parts)]
    return details + scores


def ledger_table(
    entries: Sequence[LedgerEntry],
    best_id: str | None,
    title: str = "",
    *,
    not_ranked: Mapping[str, list[str]] | None = None,
    changes: Mapping[str, list[str]] | None = None,
    key: str = "ledger",
) -> Table:
    """Newest first; the best run's row is ``strong`` and its score carries ★.

    ``not_ranked``: why a run cannot be ★ (a column, shown for scored or hidden runs);
    ``changes``: what changed by run id (the manifest diff), shown when a run has no note."""
    by_id = {e.id: e for e in entries}
    why = {
        i: r
        for i, r in (not_ranked or {}).items()
        if r and i in by_id and (by_id[i].score is not None or HIDDEN in r)
    }
    diffs = changes or {}
    # each kind's columns (harness/view/summary.py): its details (bucket medians, benchmarks)
    # after the ranked score, its own score (once any run has one) after every kind's details
    kinds = kind_columns(entries)
    # the server build, once any run took a fingerprint: different builds side by side show it
    builds = any(e.server.build for e in entries)
    headers = ["time", "run", *(["server"] if builds else []), "note", "verdict", "score"]
    headers += [c.header for _, c in kinds] + ["status"]
    headers += [NOT_RANKED] if why else []
    rows: list[Row] = []
    for e in sorted(entries, key=lambda e: (e.time, e.id), reverse=True):
        best = e.id == best_id
        score = fmt.times(e.score)
        if e.score is not None and e.score_mode == "strict":
            score += " (strict)"
        if best:
            score = f"{BEST_MARK} {score}"
        cells = [
            Cell(fmt_time(e.time, short=True)),
            Cell(e.short_label()),
            *([Cell(e.server.build or fmt.DASH)] if builds else []),
            Cell(e.note or "; ".join(diffs.get(e.id, [])) or fmt.DASH),
            Cell(e.verdict or fmt.DASH, VERDICT_TONE.get(e.verdict or "", "plain")),
            Cell(score),
            *(Cell(column.cell(e.parts[name])) for name, column in kinds),
            # a run stopped early shows its medians so far: said beside them, not hidden
            Cell(
                status(e) + ("" if e.complete else ", partial"), "plain" if e.complete else "warn"
            ),
            *([Cell("; ".join(why.get(e.id, [])), "warn")] if why else []),
        ]
        rows.append(Row(tuple(cells), "strong" if best else "plain"))
    columns = tuple(
        Column(h, "left" if h in LEFT else "right", wrap=h in ("note", "server", NOT_RANKED))
        for h in headers
    )
    return Table(key, title, columns, tuple(rows), dense=True)
