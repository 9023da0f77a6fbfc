"""Plot specifications as plain data; :mod:`harness.view.draw` turns one into a PNG.

Four shapes cover every plot of the reports: grouped :class:`Bars` (with error
bars, per-bar colours, floating bottoms and per-category reference marks),
:class:`Boxes` (one panel of box plots per bucket), :class:`Dots` (one row per
item: points, an interval and a noise band, e.g. a difference with its CI), and
:class:`Lines` (x/y series as points, lines or steps). Colours are role words,
mapped to one palette by the drawer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# "s0".."s3": the series palette; the rest are roles
Color = Literal["s0", "s1", "s2", "s3", "baseline", "good", "bad", "warn", "neutral", "ink"]
SERIES: tuple[Color, ...] = ("s0", "s1", "s2", "s3")


def series_color(i: int) -> Color:
    return SERIES[i % len(SERIES)]


@dataclass(frozen=True)
class BarSeries:
    label: str
    values: tuple[float | None, ...]  # one per category; None draws no bar
    color: Color = "s0"
    colors: tuple[Color, ...] = ()  # per bar, instead of ``color``
    errors: tuple[tuple[float, float], ...] = ()  # per bar: reach below, above
    notes: tuple[str, ...] = ()  # text above each bar
    bottoms: tuple[float, ...] = ()  # floating bars (a waterfall)


@dataclass(frozen=True)
class Spec:
    """What every chart has: its id in the page, its words."""

    key: str  # stable id: the page's <img id="plot-KEY">
    title: str  # drawn above the axes
    caption: str  # under the figure in the page
    alt: str


@dataclass(frozen=True)
class Bars(Spec):
    categories: tuple[str, ...]
    series: tuple[BarSeries, ...]
    ylabel: str = ""
    xlabel: str = ""
    marks: tuple[float | None, ...] = ()  # per category: a dashed tick (a threshold)
    mark_label: str = ""  # format of each tick's label, e.g. "gate {:.2f}"
    ylim: tuple[float, float] | None = None
    hline: float | None = None  # a dashed reference across the plot
    hline_label: str = ""
    rotate: bool = False  # slanted category labels (long run names)
    legend: bool = True


@dataclass(frozen=True)
class BoxPanel:
    title: str
    groups: tuple[tuple[str, tuple[float, ...]], ...]  # (label, values) per box
    reference: float | None = None  # dashed line (a baseline), drawn only near the data
    reference_label: str = ""


@dataclass(frozen=True)
class Boxes(Spec):
    panels: tuple[BoxPanel, ...]
    ylabel: str = ""


@dataclass(frozen=True)
class Dot:
    value: float
    color: Color = "neutral"
    marker: Literal["o", "D"] = "o"
    label: str = ""  # legend entry (given once per label)


@dataclass(frozen=True)
class DotRow:
    label: str
    dots: tuple[Dot, ...] = ()
    interval: tuple[float, float] | None = None  # a solid line, e.g. a 95 % CI
    interval_color: Color = "neutral"
    band: tuple[float, float] | None = None  # a grey band behind, e.g. the noise band
    tick: float | None = None  # a short vertical bar, e.g. a threshold


@dataclass(frozen=True)
class Dots(Spec):
    rows: tuple[DotRow, ...]
    xlabel: str = ""
    xlim: tuple[float, float] | None = None
    zero_line: bool = False


@dataclass(frozen=True)
class XY:
    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    color: Color = "s0"
    style: Literal["points", "line", "step"] = "points"


@dataclass(frozen=True)
class Lines(Spec):
    series: tuple[XY, ...]
    xlabel: str = ""
    ylabel: str = ""
    xticks: tuple[str, ...] = ()  # labels at x = 0, 1, …, slanted
    hline: float | None = None
    hline_label: str = ""


Chart = Bars | Boxes | Dots | Lines
