"""The ledger table as plain cells (shared by the console and the HTML page) and its rich form."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rich import box
from rich.markup import escape
from rich.table import Table

from harness.report.entry import LedgerEntry

BEST_MARK = "★"
DASH = "—"


def fmt_ms(v: float | None) -> str:
    return DASH if v is None else f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def fmt_x(v: float | None) -> str:
    return DASH if v is None else f"{v:.2f}×"


def fmt_score(v: float | None) -> str:
    return DASH if v is None else f"{v:.3f}"


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


@dataclass(frozen=True)
class LedgerRow:
    entry: LedgerEntry
    best: bool
    cells: list[str]


@dataclass(frozen=True)
class LedgerTable:
    headers: list[str]
    rows: list[LedgerRow]  # newest first


def ledger_table(entries: Sequence[LedgerEntry], best_id: str | None) -> LedgerTable:
    bucket_names: list[str] = []
    bench: dict[str, str] = {}
    for e in entries:
        mode = e.score_mode or "official"
        bucket_names += [b.name for b in e.buckets if b.mode == mode and b.name not in bucket_names]
        for q in e.quality:
            bench.setdefault(q.name, q.title)
    # the server build, once any run took a fingerprint: different builds side by side show it
    builds = any(e.server.build for e in entries)
    headers = ["time", "run", *(["server"] if builds else []), "note", "verdict", "score"]
    headers += [*bucket_names, *bench.values(), "status"]
    rows: list[LedgerRow] = []
    for e in sorted(entries, key=lambda e: (e.time, e.id), reverse=True):
        best = e.id == best_id
        score = fmt_x(e.score)
        if e.score is not None and e.score_mode == "strict":
            score += " (strict)"
        if best:
            score = f"{BEST_MARK} {score}"
        meds = e.medians(e.score_mode or "official")
        cells = [
            fmt_time(e.time, short=True),
            e.short_label(),
            *([e.server.build or DASH] if builds else []),
            e.note or DASH,
            e.verdict or DASH,
            score,
        ]
        for n in bucket_names:
            b = meds.get(n)
            cells.append(DASH if b is None else fmt_ms(b.median_ms))
        by_name = {q.name: q for q in e.quality}
        for name in bench:
            found = by_name.get(name)
            if found is None:
                cells.append(DASH)
                continue
            mark = "" if found.passed is None else ("✓" if found.passed else "✗")
            cells.append(("—" if found.score is None else f"{found.score:.2f}") + mark)
        cells.append(status(e))
        rows.append(LedgerRow(entry=e, best=best, cells=cells))
    return LedgerTable(headers=headers, rows=rows)


VERDICT_STYLE = {"PASS": "green", "FAIL": "red", "INCOMPLETE": "yellow"}


def rich_ledger(table: LedgerTable, title: str) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        padding=(0, 1, 0, 0),
        show_edge=False,
    )
    for h in table.headers:
        left = h in ("time", "run", "server", "note", "status")
        t.add_column(
            h,
            justify="left" if left else "right",
            no_wrap=h != "note",
            min_width=10 if h == "note" else None,
        )
    for row in table.rows:
        cells = [escape(c) for c in row.cells]  # names and notes are user text
        style = VERDICT_STYLE.get(row.entry.verdict or "")
        if style:
            at = table.headers.index("verdict")
            cells[at] = f"[{style}]{cells[at]}[/]"
        t.add_row(*cells, style="bold" if row.best else None)
    return t
