"""Self-contained HTML: inline CSS, plots as ``data:image/png;base64`` — no scripts, no network.

Renders the view models of :mod:`harness.view.model`; the console renders the
same ones (:mod:`harness.view.console`). Ids are stable for tests and links:
``section-KEY``, ``table-KEY``, ``plot-KEY``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from harness.errors import UsageError
from harness.view.model import Figure, Section, Table, Text

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #212121; max-width: 1200px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { color: #616161; font-size: 0.9em; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid #e0e0e0; padding: 4px 8px; text-align: right; vertical-align: top;
         white-space: nowrap; }
th { background: #f5f5f5; } .l { text-align: left; } .c { text-align: center; }
td.wrap { white-space: normal; min-width: 6em; max-width: 32em; }
table.dense { font-size: 0.78em; } table.dense th, table.dense td { padding: 3px 5px; }
tbody th { text-align: left; }
tr.strong td { font-weight: bold; background: #fffde7; }
.strong { font-weight: bold; } .good { color: #2e7d32; } .bad { color: #c62828; }
.warn { color: #8d6e00; } .dim { color: #757575; }
.PASS { color: #2e7d32; font-weight: bold; } .FAIL { color: #c62828; font-weight: bold; }
.INCOMPLETE { color: #ef6c00; font-weight: bold; }
.verdict { font-size: 1.3em; }
p.line { margin: 4px 0; font-size: 0.9em; } p.note { margin: 0 0 8px 0; font-size: 0.8em; } ul { font-size: 0.9em; }
figure { margin: 12px 0 24px 0; } figure img { max-width: 100%; border: 1px solid #eeeeee; }
figcaption { color: #616161; font-size: 0.85em; }
"""
ALIGN = {"left": "l", "right": "", "center": "c"}


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def _cls(*names: str) -> str:
    joined = " ".join(n for n in names if n and n != "plain")
    return f' class="{joined}"' if joined else ""


def table(t: Table) -> str:
    """A view table; every cell escaped. Key/value tables (no header) put keys in ``<th>``."""
    caption = f"<caption>{esc(t.title)}</caption>" if t.title else ""
    head = ""
    if t.show_header:
        ths = "".join(f"<th{_cls(ALIGN[c.align])}>{esc(c.header)}</th>" for c in t.columns)
        head = f"<thead><tr>{ths}</tr></thead>"
    body: list[str] = []
    for row in t.rows:
        tds: list[str] = []
        for i, (col, cell) in enumerate(zip(t.columns, row.cells, strict=True)):
            tag = "th" if i == 0 and not t.show_header else "td"
            cls = _cls(ALIGN[col.align], "wrap" if col.wrap else "", cell.tone)
            tds.append(f"<{tag}{cls}>{esc(cell.text)}</{tag}>")
        body.append(f"<tr{_cls(row.tone)}>{''.join(tds)}</tr>")
    notes = "".join(f'<p class="note dim">{esc(n)}</p>' for n in t.notes)
    return (
        f'<div class="scroll"><table id="table-{esc(t.key)}"{_cls("dense" if t.dense else "")}>'
        f"{caption}{head}"
        f"<tbody>{''.join(body)}</tbody></table></div>{notes}"
    )


def text(t: Text) -> str:
    if t.bullets:
        items = "".join(f"<li>{esc(line)}</li>" for line in t.lines)
        return f"<ul{_cls(t.tone)}>{items}</ul>"
    return "".join(f"<p{_cls('line', t.tone)}>{esc(line)}</p>" for line in t.lines)


def figure(f: Figure) -> str:
    from harness.view.draw import draw  # matplotlib, only when a page draws a plot

    plot = draw(f.chart)
    return (
        f'<figure><img id="plot-{esc(plot.key)}" class="plot" alt="{esc(plot.alt)}" '
        f'src="data:image/png;base64,{plot.png_b64}">'
        f"<figcaption>{esc(plot.caption)}</figcaption></figure>"
    )


def section(s: Section) -> str:
    """A view section; nothing at all when it has nothing to show."""
    if s.empty:
        return ""
    parts: list[str] = []
    for b in s.blocks:
        parts.append(
            table(b) if isinstance(b, Table) else text(b) if isinstance(b, Text) else figure(b)
        )
    return f'<section id="section-{esc(s.key)}"><h2>{esc(s.title)}</h2>{"".join(parts)}</section>'


def sections(ss: Iterable[Section]) -> str:
    return "".join(section(s) for s in ss)


def verdict_line(verdict: str | None) -> str:
    if verdict is None:
        return (
            '<p class="verdict">verdict: — (not gated: run <code>harness gate RUN_DIR</code>)</p>'
        )
    return f'<p class="verdict">verdict: <span class="{esc(verdict)}">{esc(verdict)}</span></p>'


def page(title: str, subtitle: str, parts: Sequence[str]) -> str:
    body = "".join(p for p in parts if p)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>"
        f'<body><h1>{esc(title)}</h1><p class="meta">{esc(subtitle)}</p>{body}</body></html>\n'
    )


def write_page(path: Path, text: str) -> None:
    """Write atomically, so a browser or a concurrent reader never sees half a page."""
    tmp = path.with_name(path.name + ".tmp")
    if path.parent.exists() and not path.parent.is_dir():
        raise UsageError(
            f"{path}: cannot write the report ({path.parent} is a file, not a folder)",
            hint="pass --html FILE somewhere writable, or --no-html",
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        raise UsageError(
            f"{path}: cannot write the report ({err.strerror or err})",
            hint="pass --html FILE somewhere writable, or --no-html",
        ) from None
