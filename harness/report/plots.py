"""The report's plots: matplotlib figures rendered with the Agg backend to base64 PNG.

No pyplot: each function builds its own ``Figure`` (no global state, safe in
tests), draws from plain data, and returns a :class:`Plot` or ``None`` when
there is nothing to draw.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.report.entry import BucketMedian, LedgerEntry, QualityScore
from harness.report.frontier import Frontier, WaterfallStep
from harness.stats import binomial_stderr

VERDICT_COLORS = {"PASS": "#2e7d32", "FAIL": "#c62828", "INCOMPLETE": "#ef6c00", None: "#757575"}
SERIES_COLORS = ("#1565c0", "#ef6c00", "#6a1b9a", "#00838f")
BASELINE_COLOR = "#9e9e9e"


@dataclass(frozen=True)
class Plot:
    key: str  # stable id, used as the <img> id
    title: str
    png_b64: str
    alt: str


def _png(fig: Figure, key: str, title: str, alt: str) -> Plot:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return Plot(key=key, title=title, png_b64=base64.b64encode(buf.getvalue()).decode(), alt=alt)


def _short(label: str, n: int = 18) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


def bucket_vs_baseline(series: Sequence[tuple[str, Mapping[str, BucketMedian]]]) -> Plot | None:
    """Grouped bars per bucket: the baseline median, then each series' measured median."""
    names: list[str] = []
    for _, buckets in series:
        names += [n for n in buckets if n not in names]
    if not names:
        return None
    baselines = {
        n: b.baseline_ms for _, bs in series for n, b in bs.items() if b.baseline_ms is not None
    }
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    width = 0.8 / (len(series) + 1)
    xs = range(len(names))
    ax.bar(
        list(xs),
        [baselines.get(n, 0.0) for n in names],
        width,
        label="baseline",
        color=BASELINE_COLOR,
    )
    for i, (label, buckets) in enumerate(series, start=1):
        meds = [buckets[n].median_ms if n in buckets else None for n in names]
        bars = ax.bar(
            [x + i * width for x in xs],
            [m or 0.0 for m in meds],
            width,
            label=_short(label, 40),
            color=SERIES_COLORS[(i - 1) % len(SERIES_COLORS)],
        )
        for bar, n in zip(bars, names, strict=True):
            b = buckets.get(n)
            if b is not None and b.speedup is not None:
                ax.annotate(
                    f"{b.speedup:.2f}x",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=8,
                )
    ax.set_xticks([x + width * len(series) / 2 for x in xs], names)
    ax.set_ylabel("median latency (ms)")
    ax.set_title("per-bucket median latency vs baseline (speedup above each bar)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, "buckets", "Latency per bucket vs baseline", "per-bucket latency bars")


def score_over_runs(fr: Frontier, entries: Sequence[LedgerEntry]) -> Plot | None:
    """Every scored run in time order, coloured by verdict, with the frontier as a step line."""
    scored = sorted((e for e in entries if e.score is not None), key=lambda e: (e.time, e.id))
    if not scored:
        return None
    index = {e.id: i for i, e in enumerate(scored)}
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    for verdict, color in VERDICT_COLORS.items():
        pts = [(index[e.id], e.score or 0.0) for e in scored if e.verdict == verdict]
        if pts:
            ax.scatter(
                [p[0] for p in pts],
                [p[1] for p in pts],
                color=color,
                label=verdict or "not gated",
                zorder=3,
            )
    if fr.points:
        xs = [index[e.id] for e in fr.points if e.id in index] + [len(scored) - 1]
        ys = [e.score or 0.0 for e in fr.points] + [fr.points[-1].score or 0.0]
        ax.step(xs, ys, where="post", color="#212121", label="frontier", zorder=2)
    ax.axhline(1.0, color=BASELINE_COLOR, linestyle="--", linewidth=1, label="baseline (1.0x)")
    ax.set_xticks(
        range(len(scored)), [_short(e.short_label()) for e in scored], rotation=30, ha="right"
    )
    ax.set_ylabel("score (mean speedup)")
    ax.set_title(f"score over runs; frontier over {fr.basis}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return _png(fig, "score", "Score over runs, with the frontier", "score over runs")


def waterfall_plot(steps: Sequence[WaterfallStep]) -> Plot | None:
    if not steps:
        return None
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    colors = [SERIES_COLORS[0] if s.first else VERDICT_COLORS["PASS"] for s in steps]
    bars = ax.bar(range(len(steps)), [s.delta for s in steps], bottom=[s.bottom for s in steps])
    for bar, s, c in zip(bars, steps, colors, strict=True):
        bar.set_color(c)
        text = f"{s.total:.2f}x" if s.first else f"+{s.delta:.2f}"
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, s.total), ha="center", va="bottom")
    ax.set_xticks(range(len(steps)), [_short(s.label) for s in steps], rotation=30, ha="right")
    ax.set_ylabel("score (mean speedup)")
    ax.set_title("score change between consecutive frontier runs")
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, "waterfall", "Waterfall of frontier improvements", "score waterfall")


def latency_distributions(
    samples: Mapping[str, Mapping[str, Sequence[float]]], baselines: Mapping[str, float]
) -> Plot | None:
    """One panel per bucket: a box per mode over timed E2E latencies, the baseline dashed."""
    buckets: list[str] = []
    for per_bucket in samples.values():
        buckets += [b for b, xs in per_bucket.items() if xs and b not in buckets]
    if not buckets:
        return None
    fig = Figure(figsize=(3.2 * len(buckets) + 0.5, 3.6), layout="constrained")
    axes = fig.subplots(1, len(buckets), squeeze=False)[0]
    axes[0].set_ylabel("E2E latency (ms)")
    for ax, bucket in zip(axes, buckets, strict=True):
        modes = [m for m, per in samples.items() if per.get(bucket)]
        data = [list(samples[m][bucket]) for m in modes]
        ax.boxplot(data, tick_labels=[f"{m}\nn={len(d)}" for m, d in zip(modes, data, strict=True)])
        base = baselines.get(bucket)
        lo, hi = min(min(d) for d in data), max(max(d) for d in data)
        # Draw the baseline only near the data: far away it would squash the boxes flat.
        if base is not None and 0.5 * lo <= base <= 1.5 * hi:
            ax.axhline(base, color=BASELINE_COLOR, linestyle="--", label="baseline")
            ax.legend(fontsize=7)
        ax.set_title(bucket if base is None else f"{bucket} (baseline {base:,.0f} ms)", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("latency distributions (timed, successful requests)")
    return _png(fig, "distributions", "Latency distributions", "latency box plots")


def quality_vs_thresholds(quality: Sequence[QualityScore]) -> Plot | None:
    """Score per benchmark with a 95 % sampling interval, and the gate's threshold."""
    rows = [q for q in quality if q.score is not None or q.threshold is not None]
    if not rows:
        return None
    fig = Figure(figsize=(8, 3.6))
    ax = fig.add_subplot()
    xs = range(len(rows))
    scores = [q.score or 0.0 for q in rows]
    errs = [
        1.96 * (binomial_stderr(q.score, q.n) or 0.0) if q.score is not None else 0.0 for q in rows
    ]
    colors = [
        VERDICT_COLORS["PASS" if q.passed else "FAIL" if q.passed is False else None] for q in rows
    ]
    ax.bar(xs, scores, 0.6, yerr=errs, capsize=4, color=colors)
    for x, q in zip(xs, rows, strict=True):
        if q.threshold is not None:
            ax.hlines(q.threshold, x - 0.4, x + 0.4, colors="#212121", linestyles="--")
            ax.annotate(f"gate {q.threshold:.2f}", (x + 0.42, q.threshold), va="center", fontsize=8)
        if q.score is not None:
            ax.annotate(
                f"{q.score:.3f}\nn={q.n}", (x, 0.02), ha="center", fontsize=8, color="white"
            )
    ax.set_xticks(list(xs), [q.title for q in rows])
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("score")
    ax.set_title("quality scores (95 % sampling interval) vs gate thresholds (dashed)")
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, "quality", "Quality scores vs thresholds", "quality bars")
