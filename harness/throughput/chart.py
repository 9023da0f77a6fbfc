"""A PNG chart of verified tok/s by concurrency level (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path

from harness.throughput.report import ThroughputReport

CHART_FILE = "throughput.png"


def write_chart(report: ThroughputReport, folder: Path) -> Path | None:
    """Bars of tok/s per level (output tok/s beside them); None when nothing was measured."""
    levels = [lv for lv in report.levels if lv.tok_s is not None]
    if not levels:
        return None
    import matplotlib

    matplotlib.use("Agg")  # files only: never open a window
    import matplotlib.pyplot as plt

    labels = [str(lv.concurrency) for lv in levels]
    xs = list(range(len(levels)))
    total = [lv.tok_s or 0.0 for lv in levels]
    output = [lv.output_tok_s or 0.0 for lv in levels]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    try:
        ax.bar([x - 0.2 for x in xs], total, width=0.4, label="prompt + output tok/s (scored)")
        ax.bar([x + 0.2 for x in xs], output, width=0.4, label="output tok/s")
        for x, v in zip(xs, total, strict=True):
            ax.annotate(f"{v:,.0f}", (x - 0.2, v), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(xs, labels)
        ax.set_xlabel("concurrency")
        ax.set_ylabel("tokens / s (verified)")
        score = "—" if report.score is None else f"{report.score:,.0f}"
        mode = f"{report.mode} mode" + ("" if report.official else "; non-official settings")
        ax.set_title(f"throughput by level ({mode}); weighted score {score}", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        path = folder / CHART_FILE
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path
