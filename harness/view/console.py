"""Sections on a rich console: tables as rich tables, texts as lines, figures left out.

Cell and line texts are rich ``Text`` objects, never markup: names, notes and
server answers print as they are ("[red]" stays "[red]").
"""

from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table as RichTable
from rich.text import Text as RichText

from harness.view.model import Section, Table, Text, Tone

STYLE: dict[Tone, str] = {
    "plain": "",
    "strong": "bold",
    "good": "green",
    "bad": "red",
    "warn": "yellow",
    "dim": "dim",
}


def rich_table(t: Table) -> RichTable:
    rt = RichTable(
        title=t.title or None,
        title_justify="left",
        show_header=t.show_header,
        # many columns (the ledger): no frame, one space between columns
        box=box.SIMPLE_HEAD if t.dense else box.HEAVY_HEAD,
        padding=(0, 1, 0, 0) if t.dense else (0, 1),
        show_edge=not t.dense,
        # the footnotes, under the table wherever it is printed
        caption=RichText("\n".join(t.notes), style="dim") if t.notes else None,
        caption_justify="left",
    )
    for c in t.columns:
        rt.add_column(
            c.header,
            justify=c.align,
            # Too narrow a console folds a cell onto more lines, never cuts it: an ellipsis
            # ('20.…', 'INCOMPLE…') or no_wrap (cut without a mark) would lose figures.
            overflow="fold",
        )
    for row in t.rows:
        cells = [RichText(c.text, style=STYLE[c.tone]) for c in row.cells]
        rt.add_row(*cells, style=STYLE[row.tone] or None)
    return rt


def text_lines(t: Text) -> list[RichText]:
    mark = t.prefix or ("  • " if t.bullets else "")
    return [RichText(mark + line, style=STYLE[t.tone]) for line in t.lines]


def renderables(section: Section, *, title: bool = False) -> list[RenderableType]:
    out: list[RenderableType] = []
    if title and not section.empty:
        out += [RichText(""), RichText(section.title, style="bold underline")]
    for block in section.blocks:
        if isinstance(block, Table):
            out.append(rich_table(block))
        elif isinstance(block, Text):
            out += text_lines(block)
        # a Figure is drawn in report.html only
    return out


def print_sections(console: Console, sections: Iterable[Section], *, titles: bool = False) -> None:
    for s in sections:
        for r in renderables(s, title=titles):
            console.print(r)
