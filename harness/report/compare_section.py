"""The compare section of a run's report.html: the saved comparison as tables and plots.

``harness compare A B`` saves ``compare.json`` into B; the run page of B calls
:func:`compare_section` and shows nothing when there is no comparison. It lives
in report/ (which reads every kind of report) so that compare never imports report.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from harness.compare.load import load_compare
from harness.compare.model import CompareReport
from harness.errors import HarnessError
from harness.report import html
from harness.report.plots import Plot
from harness.stats import binomial_stderr

COLORS = {"faster": "#2e7d32", "higher": "#2e7d32", "slower": "#c62828", "lower": "#c62828"}
NEUTRAL = "#757575"


def _ci(ci: tuple[float, float] | None, digits: int = 1) -> str:
    return "—" if ci is None else f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]"


def _num(v: float | None, digits: int = 1, sign: bool = False) -> str:
    if v is None:
        return "—"
    return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"


def _band(v: float, verdict: str, digits: int = 1) -> str:
    """The noise band, or "?" where the runs were too short to estimate it."""
    return "?" if verdict == "inconclusive" else _num(v, digits)


def latency_plot(rep: CompareReport) -> Plot | None:
    """Δ median (B − A, % of A) per mode / bucket / metric, with its 95 % CI and noise band."""
    rows = [d for d in rep.latency if d.diff_pct is not None and d.median_a_ms]
    if not rows:
        return None
    fig = Figure(figsize=(7.5, 0.45 * len(rows) + 1.2))
    ax = fig.add_subplot()
    for y, d in enumerate(rows):
        scale = 100 / (d.median_a_ms or 1.0)
        color = COLORS.get(d.verdict, NEUTRAL)
        ax.fill_betweenx(
            [y - 0.3, y + 0.3], -d.noise_ms * scale, d.noise_ms * scale, color="#eeeeee"
        )
        if d.ci95_ms is not None:
            ax.plot([d.ci95_ms[0] * scale, d.ci95_ms[1] * scale], [y, y], color=color, lw=2)
        ax.plot([d.diff_pct or 0.0], [y], "o", color=color)
    ax.axvline(0, color="#424242", lw=0.8)
    ax.set_yticks(range(len(rows)), [f"{d.mode} {d.bucket} {d.metric}" for d in rows])
    ax.invert_yaxis()
    ax.set_xlabel("B − A, % of A's median (positive = B slower); grey: noise band")
    return _plot(
        fig,
        "compare-latency",
        "latency difference per bucket with 95 % CI",
        "difference of medians B − A per bucket with confidence intervals",
    )


def quality_plot(rep: CompareReport) -> Plot | None:
    """A's and B's score per benchmark, B's 95 % sampling interval, and the gate threshold."""
    rows = [q for q in rep.quality if q.score_a is not None or q.score_b is not None]
    if not rows:
        return None
    fig = Figure(figsize=(7.5, 0.5 * len(rows) + 1.2))
    ax = fig.add_subplot()
    for y, q in enumerate(rows):
        if q.score_a is not None:
            ax.plot([q.score_a], [y], "o", color=NEUTRAL, label="A" if y == 0 else None)
        if q.score_b is not None:
            color = "#2e7d32" if q.passed_b else "#c62828"
            se = binomial_stderr(q.score_b, q.n_b) or 0.0
            ax.plot([q.score_b - 1.96 * se, q.score_b + 1.96 * se], [y, y], color=color, lw=2)
            ax.plot([q.score_b], [y], "D", color=color, label="B" if y == 0 else None)
        ax.plot([q.threshold, q.threshold], [y - 0.35, y + 0.35], color="#212121", lw=1.5)
    ax.set_yticks(range(len(rows)), [q.title for q in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("score (bar: threshold; line: B's 95 % sampling interval)")
    ax.legend(loc="lower right", fontsize="small")
    return _plot(
        fig, "compare-quality", "quality of A and B against the gate", "quality scores A and B"
    )


def _plot(fig: Figure, key: str, title: str, alt: str) -> Plot:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return Plot(key=key, title=title, png_b64=base64.b64encode(buf.getvalue()).decode(), alt=alt)


def _latency_table(rep: CompareReport) -> str:
    headers = ["mode", "bucket", "metric", "median A ms", "median B ms", "Δ ms", "Δ %"]
    headers += ["95% CI ms", "noise ms", "verdict"]
    rows = [
        [
            d.mode,
            d.bucket,
            d.metric,
            _num(d.median_a_ms),
            _num(d.median_b_ms),
            _num(d.diff_ms, sign=True),
            _num(d.diff_pct, sign=True),
            _ci(d.ci95_ms),
            _band(d.noise_ms, d.verdict),
            d.verdict,
        ]
        for d in rep.latency
    ]
    for s in rep.latency_scores:
        rows.append(
            [
                s.mode,
                "score",
                "mean speedup",
                _num(s.score_a, 3),
                _num(s.score_b, 3),
                _num(s.diff, 3, sign=True),
                _num(s.diff_pct, sign=True),
                _ci(s.ci95, 3),
                _band(s.noise, s.verdict, 3),
                s.verdict,
            ]
        )
    return html.table(headers, rows, left=["mode", "bucket", "metric", "verdict"])


def _quality_table(rep: CompareReport) -> str:
    headers = ["benchmark", "A", "B", "pairs", "B only right", "A only right", "McNemar p"]
    headers += ["threshold", "B passes", "P(pass)"]
    rows = [
        [
            q.title,
            _num(q.score_a, 3),
            _num(q.score_b, 3),
            str(q.n_pairs),
            str(q.b_only),
            str(q.a_only),
            "—" if q.mcnemar_p is None else f"{q.mcnemar_p:.3g}",
            f"{q.threshold:.3f}",
            {True: "yes", False: "no", None: "—"}[q.passed_b],
            _num(q.pass_probability_b, 2),
        ]
        for q in rep.quality
    ]
    flips = [
        f"{q.title} {i.task}#{i.doc_id}{'' if i.index is None else f'.{i.index}'}: "
        f"{'wrong → right' if i.correct_b else 'right → wrong'} (A {i.answer_a[:60]!r}, "
        f"B {i.answer_b[:60]!r}, target {i.target[:40]!r})"
        for q in rep.quality
        for i in q.flipped
    ]
    return html.table(headers, rows, left=["benchmark"]) + html.bullet_list(flips, "flips")


def _throughput_table(rep: CompareReport) -> str:
    headers = ["concurrency", "tok/s A", "tok/s B", "Δ", "Δ %", "95% CI", "noise", "verdict"]
    rows = [
        [
            str(x.concurrency),
            _num(x.tok_s_a),
            _num(x.tok_s_b),
            _num(x.diff, sign=True),
            _num(x.diff_pct, sign=True),
            _ci(x.ci95),
            _band(x.noise, x.verdict),
            x.verdict,
        ]
        for x in rep.throughput
    ]
    return html.table(headers, rows, left=["verdict"])


def _vlm_table(rep: CompareReport) -> str:
    v = rep.vlm
    if v is None:
        return ""
    headers = ["metric", "mean A", "mean B", "Δ", "Δ %", "95% CI", "verdict"]
    rows = [
        [
            m.metric,
            _num(m.mean_a, 2),
            _num(m.mean_b, 2),
            _num(m.diff, 2, sign=True),
            _num(m.diff_pct, sign=True),
            _ci(m.ci95, 2),
            m.verdict,
        ]
        for m in (v.ttft, v.tok_s)
    ]
    acc = (
        f"VLM accuracy ({v.accuracy_metric}): A {_num(v.accuracy_a, 3)}, B {_num(v.accuracy_b, 3)}; "
        f"B only right {v.b_only}, A only right {v.a_only}, McNemar p "
        + ("—" if v.mcnemar_p is None else f"{v.mcnemar_p:.3g}")
    )
    flips = [
        f"{f.question_id}: {'wrong → right' if f.correct_b else 'right → wrong'} "
        f"(A {f.prediction_a[:60]!r}, B {f.prediction_b[:60]!r})"
        for f in v.flipped
    ]
    return (
        html.table(headers, rows, left=["metric", "verdict"])
        + html.paragraph(acc)
        + html.bullet_list(flips, "flips")
    )


def compare_section(folder: Path) -> str:
    """The HTML section for ``folder``'s saved comparison; '' when there is none."""
    try:
        rep = load_compare(folder)
    except HarnessError as err:
        return html.section("Compare", html.bullet_list([err.one_line()], "problems"))
    if rep is None:
        return ""
    lat, qual = latency_plot(rep), quality_plot(rep)
    return html.section(
        f"Compare with {Path(rep.run_a).name}",
        html.paragraph(f"A = {rep.run_a}, B = this run; differences are B − A."),
        html.figure(lat) if lat else "",
        _latency_table(rep) if rep.latency else "",
        html.figure(qual) if qual else "",
        _quality_table(rep) if rep.quality else "",
        _throughput_table(rep) if rep.throughput else "",
        _vlm_table(rep),
        html.bullet_list(rep.notes, "flags"),
    )
