"""View models: what a report shows, as plain data (no rich, no HTML, no matplotlib).

A measurement package turns its typed report into a list of :class:`Section`
(``<package>/views.py: sections(report)``); one renderer prints sections on a
rich console (:mod:`harness.view.console`), another writes them into
report.html (``harness/report/html.py``). A table is built once and shown
twice, never written by hand for each output (docs/report.md, "Views").

Tones are words, not colours: each renderer maps them (``good`` green, ``bad``
red, ``warn`` yellow, ``dim`` grey, ``strong`` bold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from harness.view.chart import Chart

Tone = Literal["plain", "strong", "good", "bad", "warn", "dim"]
Align = Literal["left", "right", "center"]


@dataclass(frozen=True)
class Cell:
    """One table cell: its text and an optional tone (a red failure count, a green PASS)."""

    text: str
    tone: Tone = "plain"


@dataclass(frozen=True)
class Column:
    header: str
    align: Align = "right"
    wrap: bool = False  # long free text (reasons, notes) wraps; figures never do


@dataclass(frozen=True)
class Row:
    cells: tuple[Cell, ...]
    tone: Tone = "plain"  # the whole row (the ledger's best run is ``strong``)


@dataclass(frozen=True)
class Table:
    """Headers with alignment, rows of plain cells. ``key`` names it in the page (DOM id)."""

    key: str
    title: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    show_header: bool = True
    dense: bool = False  # many columns: the console drops the frame (the ledger)
    # footnotes under the table: what a mark in its cells means (harness/view/tails.py), a
    # word its headers use
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Text:
    """Sentences in one tone; ``bullets`` shows them as a list (reasons, flags)."""

    lines: tuple[str, ...]
    tone: Tone = "plain"
    bullets: bool = False
    prefix: str = ""  # console only: a word before each line ("attribution: ")


@dataclass(frozen=True)
class Figure:
    """A plot, as data: drawn to PNG for report.html, left out of the console."""

    chart: Chart


Block = Table | Text | Figure


@dataclass(frozen=True)
class Section:
    """A titled group of blocks; ``key`` names it in the page (``id="section-<key>"``)."""

    key: str
    title: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)

    @property
    def empty(self) -> bool:
        return not self.blocks


CellLike = Cell | str


def cell(value: CellLike) -> Cell:
    return value if isinstance(value, Cell) else Cell(value)


def table(
    key: str,
    title: str,
    columns: Sequence[Column | str],
    rows: Sequence[Sequence[CellLike] | Row],
    *,
    left: Sequence[str] = (),
    show_header: bool = True,
    dense: bool = False,
    notes: Sequence[str] = (),
) -> Table:
    """Build a :class:`Table` from plain strings: ``left`` names the left-aligned columns."""
    cols = tuple(
        c if isinstance(c, Column) else Column(c, "left" if c in left else "right") for c in columns
    )
    out: list[Row] = []
    for r in rows:
        row = r if isinstance(r, Row) else Row(tuple(cell(c) for c in r))
        if len(row.cells) != len(cols):
            raise ValueError(
                f"table {key}: a row of {len(row.cells)} cells under {len(cols)} columns"
            )
        out.append(row)
    return Table(key, title, cols, tuple(out), show_header, dense, tuple(n for n in notes if n))


def facts(key: str, title: str, pairs: Sequence[tuple[str, CellLike]]) -> Table:
    """A two-column key/value table without a header row."""
    return table(
        key,
        title,
        [Column("figure", "left"), Column("value", "left", wrap=True)],
        [[k, v] for k, v in pairs],
        show_header=False,
    )


def text(*lines: str, tone: Tone = "plain", bullets: bool = False, prefix: str = "") -> Text:
    return Text(tuple(line for line in lines if line), tone, bullets, prefix)


def section(key: str, title: str, *blocks: Block | None) -> Section:
    """A section of the blocks that have something to show (empty tables and texts dropped)."""
    kept = tuple(
        b
        for b in blocks
        if b is not None
        and not (isinstance(b, Table) and not b.rows)
        and not (isinstance(b, Text) and not b.lines)
    )
    return Section(key, title, kept)
