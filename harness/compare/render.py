"""Console output of ``harness compare``: one table per report kind, flipped items, notes."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.compare.model import CompareReport, ScoreDiff

FLIPS_SHOWN = 20
COLORS = {
    "faster": "green",
    "higher": "green",
    "slower": "red",
    "lower": "red",
    "within noise": "dim",
    "inconclusive": "yellow",
    "no data": "yellow",
}


def _f(value: float | None, digits: int = 1, sign: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _ci(ci: tuple[float, float] | None, digits: int = 1) -> str:
    return "-" if ci is None else f"[{ci[0]:+.{digits}f}, {ci[1]:+.{digits}f}]"


def _v(word: str) -> str:
    return f"[{COLORS.get(word, 'white')}]{word}[/]"


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return f"{p:.2g}" if p < 0.01 else f"{p:.3f}"


def _noise(value: float, verdict: str, digits: int = 1) -> str:
    """The band, or "?" where the runs were too short to estimate it (inconclusive)."""
    return "?" if verdict == "inconclusive" else f"{value:.{digits}f}"


def _score_line(label: str, s: ScoreDiff, digits: int) -> str:
    return (
        f"{label}: A {_f(s.score_a, digits)} → B {_f(s.score_b, digits)}, "
        f"{_f(s.diff, digits, sign=True)} ({_f(s.diff_pct, 1, sign=True)} %), "
        f"95 % CI {_ci(s.ci95, digits)}, noise ±{_noise(s.noise, s.verdict, digits)} "
        f"({s.noise_source}) → {_v(s.verdict)}"
    )


def render(console: Console, rep: CompareReport) -> None:
    console.print(f"A: {rep.run_a}\nB: {rep.run_b}\nprofile: {rep.profile}")
    if rep.latency:
        t = Table(title="latency (B − A; positive = B slower)", title_justify="left")
        for col in ("mode", "bucket", "metric", "n A/B", "median A ms", "median B ms"):
            t.add_column(col, justify="left" if col in ("mode", "bucket", "metric") else "right")
        for col in ("Δ ms", "Δ %", "95 % CI ms", "noise ms", "verdict"):
            t.add_column(col, justify="left" if col == "verdict" else "right", no_wrap=True)
        for d in rep.latency:
            t.add_row(
                d.mode,
                d.bucket,
                d.metric,
                f"{d.n_a}/{d.n_b}",
                _f(d.median_a_ms),
                _f(d.median_b_ms),
                _f(d.diff_ms, sign=True),
                _f(d.diff_pct, sign=True),
                _ci(d.ci95_ms),
                _noise(d.noise_ms, d.verdict),
                _v(d.verdict),
            )
        console.print(t)
        for d in rep.latency:
            if d.verdict == "inconclusive":
                console.print(f"{d.mode} {d.bucket} {d.metric}: {escape(d.noise_source)}")
        for s in rep.latency_scores:
            console.print(_score_line(f"{s.mode} score (mean speedup)", s, 3))
    if rep.quality:
        t = Table(title="quality (paired per item)", title_justify="left")
        for col in ("benchmark", "A", "B", "Δ", "pairs", "B only ✓", "A only ✓", "McNemar p"):
            t.add_column(col, justify="left" if col == "benchmark" else "right")
        for col in ("gate", "B passes", "P(pass)"):
            t.add_column(col, justify="right")
        for q in rep.quality:
            t.add_row(
                q.title,
                _f(q.score_a, 3),
                _f(q.score_b, 3),
                _f(q.diff, 3, sign=True),
                str(q.n_pairs),
                str(q.b_only),
                str(q.a_only),
                _p(q.mcnemar_p),
                f"{q.threshold:.3f}",
                {True: "[green]yes[/]", False: "[red]no[/]", None: "-"}[q.passed_b],
                _f(q.pass_probability_b, 2),
            )
        console.print(t)
        for q in rep.quality:
            if q.note:
                console.print(f"{q.title}: {escape(q.note)}")
            for item in q.flipped[:FLIPS_SHOWN]:
                where = f"{item.task}#{item.doc_id}" + (
                    f".{item.index}" if item.index is not None else ""
                )
                arrow = "[green]✗→✓[/]" if item.correct_b else "[red]✓→✗[/]"
                console.print(
                    f"  {arrow} {escape(where)}: A {escape(repr(item.answer_a[:60]))} "
                    f"B {escape(repr(item.answer_b[:60]))} target {escape(repr(item.target[:40]))}"
                )
            if len(q.flipped) > FLIPS_SHOWN:
                console.print(f"  … {len(q.flipped) - FLIPS_SHOWN} more flipped items (--json)")
    if rep.throughput:
        t = Table(title="throughput (B − A; positive = B higher)", title_justify="left")
        cols = ("concurrency", "tok/s A", "tok/s B", "Δ tok/s", "Δ %", "95 % CI", "noise")
        for col in (*cols, "verdict"):
            t.add_column(col, justify="left" if col == "verdict" else "right")
        for lv in rep.throughput:
            t.add_row(
                str(lv.concurrency),
                _f(lv.tok_s_a),
                _f(lv.tok_s_b),
                _f(lv.diff, sign=True),
                _f(lv.diff_pct, sign=True),
                _ci(lv.ci95),
                _noise(lv.noise, lv.verdict),
                _v(lv.verdict),
            )
        console.print(t)
        for lv in rep.throughput:
            if lv.verdict == "inconclusive":
                console.print(f"level {lv.concurrency}: {escape(lv.noise_source)}")
        if rep.throughput_score:
            console.print(_score_line("weighted score (tok/s)", rep.throughput_score, 1))
    if rep.vlm:
        v = rep.vlm
        t = Table(title=f"VLM (paired by question_id, {v.n_pairs} pairs)", title_justify="left")
        for col in ("metric", "mean A", "mean B", "Δ", "Δ %", "95 % CI", "verdict"):
            t.add_column(col, justify="left" if col in ("metric", "verdict") else "right")
        for m in (v.ttft, v.tok_s):
            t.add_row(
                m.metric,
                _f(m.mean_a, 2),
                _f(m.mean_b, 2),
                _f(m.diff, 2, sign=True),
                _f(m.diff_pct, sign=True),
                _ci(m.ci95, 2),
                _v(m.verdict),
            )
        console.print(t)
        console.print(
            f"VLM accuracy ({v.accuracy_metric}): A {_f(v.accuracy_a, 3)} → B {_f(v.accuracy_b, 3)}, "
            f"B only right {v.b_only}, A only right {v.a_only}, McNemar p {_p(v.mcnemar_p)}"
        )
        for f in v.flipped[:FLIPS_SHOWN]:
            arrow = "[green]✗→✓[/]" if f.correct_b else "[red]✓→✗[/]"
            console.print(
                f"  {arrow} {escape(str(f.question_id))}: A {escape(repr(f.prediction_a[:60]))} "
                f"B {escape(repr(f.prediction_b[:60]))} answers {escape(repr(f.answers[:3]))}"
            )
    for note in rep.notes:
        console.print(f"[yellow]note: {escape(note)}[/]")
