"""Draw a :mod:`harness.view.chart` spec with matplotlib (Agg) into a PNG.

No pyplot: each call builds its own ``Figure`` (no global state, safe in tests
and threads). :func:`draw` returns the PNG as base64 for report.html;
:func:`save_png` writes it beside a report (throughput.png).
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.view.chart import Bars, Boxes, Chart, Color, Dots, Lines

PALETTE: dict[Color, str] = {
    "s0": "#1565c0",
    "s1": "#ef6c00",
    "s2": "#6a1b9a",
    "s3": "#00838f",
    "baseline": "#9e9e9e",
    "good": "#2e7d32",
    "bad": "#c62828",
    "warn": "#ef6c00",
    "neutral": "#757575",
    "ink": "#212121",
}
WIDTH = 8.0


@dataclass(frozen=True)
class Plot:
    """A drawn chart: the PNG as base64 and the words the page shows with it."""

    key: str
    caption: str
    png_b64: str
    alt: str


def short(label: str, n: int = 18) -> str:
    """Each line of a label cut to ``n`` characters (a multi-line label: its lines to 24)."""
    if "\n" in label:
        return "\n".join(short(line, max(n, 24)) for line in label.split("\n"))
    return label if len(label) <= n else label[: n - 1] + "…"


def _bars(fig: Figure, c: Bars) -> None:
    ax = fig.add_subplot()
    n = max(len(c.series), 1)
    width = 0.8 / n
    xs = range(len(c.categories))
    for i, s in enumerate(c.series):
        at = [x + (i - (n - 1) / 2) * width for x in xs]
        heights = [v or 0.0 for v in s.values]
        colors = [PALETTE[k] for k in s.colors] if s.colors else PALETTE[s.color]
        bars = ax.bar(
            at,
            heights,
            width,
            bottom=list(s.bottoms) or None,
            yerr=[list(e) for e in zip(*s.errors, strict=True)] if s.errors else None,
            capsize=4 if s.errors else 0,
            color=colors,
            label=short(s.label, 40) if s.label else None,
        )
        for bar, note, v in zip(bars, s.notes or [""] * len(bars), s.values, strict=True):
            if note and v is not None:
                top = bar.get_y() + bar.get_height()
                x = bar.get_x() + bar.get_width() / 2
                ax.annotate(note, (x, top), ha="center", va="bottom", fontsize=8)
    for x, mark in zip(xs, c.marks, strict=False):
        if mark is not None:
            ax.hlines(mark, x - 0.4, x + 0.4, colors=PALETTE["ink"], linestyles="--")
            if c.mark_label:
                ax.annotate(c.mark_label.format(mark), (x + 0.42, mark), va="center", fontsize=8)
    if c.hline is not None:
        ax.axhline(c.hline, color=PALETTE["baseline"], ls="--", lw=1, label=c.hline_label or None)
    labels = [short(k) for k in c.categories] if c.rotate else list(c.categories)
    ax.set_xticks(
        list(xs), labels, rotation=30 if c.rotate else 0, ha="right" if c.rotate else "center"
    )
    if c.ylim:
        ax.set_ylim(*c.ylim)
    ax.set_ylabel(c.ylabel)
    ax.set_xlabel(c.xlabel)
    if c.legend and any(s.label for s in c.series):
        ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(c.title, fontsize=10)


def _boxes(fig: Figure, c: Boxes) -> None:
    axes = fig.subplots(1, len(c.panels), squeeze=False)[0]
    axes[0].set_ylabel(c.ylabel)
    for ax, panel in zip(axes, c.panels, strict=True):
        data = [list(xs) for _, xs in panel.groups]
        labels = [f"{label}\nn={len(xs)}" for label, xs in panel.groups]
        ax.boxplot(data, tick_labels=labels)
        lo, hi = min(min(d) for d in data), max(max(d) for d in data)
        ref = panel.reference
        # a reference far from the data would squash the boxes flat
        if ref is not None and 0.5 * lo <= ref <= 1.5 * hi:
            ax.axhline(ref, color=PALETTE["baseline"], ls="--", label=panel.reference_label or None)
            if panel.reference_label:
                ax.legend(fontsize=7)
        ax.set_title(panel.title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(c.title)


def _dots(fig: Figure, c: Dots) -> None:
    ax = fig.add_subplot()
    seen: set[str] = set()
    for y, row in enumerate(c.rows):
        if row.band is not None:
            ax.fill_betweenx([y - 0.3, y + 0.3], row.band[0], row.band[1], color="#eeeeee")
        if row.interval is not None:
            ax.plot(list(row.interval), [y, y], color=PALETTE[row.interval_color], lw=2)
        if row.tick is not None:
            ax.plot([row.tick, row.tick], [y - 0.35, y + 0.35], color=PALETTE["ink"], lw=1.5)
        for d in row.dots:
            label = d.label if d.label and d.label not in seen else None
            seen.add(d.label)
            ax.plot([d.value], [y], d.marker, color=PALETTE[d.color], label=label)
    if c.zero_line:
        ax.axvline(0, color="#424242", lw=0.8)
    ax.set_yticks(range(len(c.rows)), [r.label for r in c.rows])
    ax.invert_yaxis()
    if c.xlim:
        ax.set_xlim(*c.xlim)
    ax.set_xlabel(c.xlabel)
    if seen - {""}:
        ax.legend(loc="lower right", fontsize="small")
    ax.set_title(c.title, fontsize=10)


def _lines(fig: Figure, c: Lines) -> None:
    ax = fig.add_subplot()
    for s in c.series:
        color = PALETTE[s.color]
        if s.style == "points":
            ax.scatter(list(s.xs), list(s.ys), color=color, label=s.label or None, zorder=3)
        elif s.style == "step":
            ax.step(list(s.xs), list(s.ys), where="post", color=color, label=s.label or None)
        else:
            ax.plot(list(s.xs), list(s.ys), "o-", color=color, label=s.label or None)
    if c.hline is not None:
        ax.axhline(c.hline, color=PALETTE["baseline"], ls="--", lw=1, label=c.hline_label or None)
    if c.xticks:
        ax.set_xticks(range(len(c.xticks)), [short(t) for t in c.xticks], rotation=30, ha="right")
    ax.set_xlabel(c.xlabel)
    ax.set_ylabel(c.ylabel)
    if any(s.label for s in c.series) or c.hline_label:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(c.title, fontsize=10)


def figure(c: Chart) -> Figure:
    """The matplotlib figure of one spec (sized by its content)."""
    if isinstance(c, Boxes):
        fig = Figure(figsize=(3.2 * len(c.panels) + 0.5, 3.6), layout="constrained")
        _boxes(fig, c)
    elif isinstance(c, Dots):
        fig = Figure(figsize=(7.5, 0.45 * len(c.rows) + 1.2))
        _dots(fig, c)
    elif isinstance(c, Bars):
        fig = Figure(figsize=(WIDTH, 3.6))
        _bars(fig, c)
    else:
        fig = Figure(figsize=(WIDTH, 3.6))
        _lines(fig, c)
    return fig


def png(c: Chart) -> bytes:
    fig = figure(c)
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def draw(c: Chart) -> Plot:
    return Plot(key=c.key, caption=c.caption, png_b64=base64.b64encode(png(c)).decode(), alt=c.alt)


def save_png(c: Chart, path: Path) -> Path:
    path.write_bytes(png(c))
    return path
