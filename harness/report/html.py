"""Self-contained HTML: inline CSS, plots as ``data:image/png;base64`` — no scripts, no network."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path

from harness.errors import UsageError
from harness.report.plots import Plot

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #212121; max-width: 1200px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { color: #616161; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; }
th, td { border: 1px solid #e0e0e0; padding: 4px 8px; text-align: right; vertical-align: top; }
th { background: #f5f5f5; } td.l, th.l { text-align: left; }
tr.best td { font-weight: bold; background: #fffde7; }
.PASS { color: #2e7d32; font-weight: bold; } .FAIL { color: #c62828; font-weight: bold; }
.INCOMPLETE { color: #ef6c00; font-weight: bold; }
.verdict { font-size: 1.3em; }
ul.flags li { color: #8d6e00; } ul.problems li { color: #c62828; }
figure { margin: 12px 0 24px 0; } figure img { max-width: 100%; border: 1px solid #eeeeee; }
figcaption { color: #616161; font-size: 0.85em; }
"""


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    left: Sequence[str] = (),
    row_classes: Sequence[str] | None = None,
    cell_classes: Mapping[tuple[int, int], str] | None = None,
) -> str:
    """An HTML table; every cell is escaped. ``left`` names left-aligned columns."""
    lefts = {i for i, h in enumerate(headers) if h in left}
    head = "".join(
        f'<th class="{"l" if i in lefts else ""}">{esc(h)}</th>' for i, h in enumerate(headers)
    )
    body: list[str] = []
    for r, row in enumerate(rows):
        cls = row_classes[r] if row_classes else ""
        tds = []
        for c, cell in enumerate(row):
            classes = " ".join(
                x for x in ("l" if c in lefts else "", (cell_classes or {}).get((r, c), "")) if x
            )
            tds.append(f'<td class="{classes}">{esc(cell)}</td>')
        body.append(f'<tr class="{cls}">{"".join(tds)}</tr>')
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def facts(rows: Sequence[tuple[str, str]]) -> str:
    """A two-column key/value table, keys as row headers."""
    body = "".join(
        f'<tr><th class="l">{esc(k)}</th><td class="l">{esc(v)}</td></tr>' for k, v in rows
    )
    return f"<table><tbody>{body}</tbody></table>"


def figure(plot: Plot, caption: str = "") -> str:
    return (
        f'<figure><img id="plot-{esc(plot.key)}" class="plot" alt="{esc(plot.alt)}" '
        f'src="data:image/png;base64,{plot.png_b64}">'
        f"<figcaption>{esc(caption or plot.title)}</figcaption></figure>"
    )


def bullet_list(items: Sequence[str], cls: str) -> str:
    if not items:
        return ""
    return f'<ul class="{cls}">' + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>"


def section(title: str, *parts: str) -> str:
    body = "".join(p for p in parts if p)
    return f"<section><h2>{esc(title)}</h2>{body}</section>" if body else ""


def paragraph(text: str, cls: str = "") -> str:
    return f'<p class="{cls}">{esc(text)}</p>' if text else ""


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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as err:
        raise UsageError(
            f"{path}: cannot write the report ({err.strerror or err})",
            hint="pass --html FILE somewhere writable, or --no-html",
        ) from None
