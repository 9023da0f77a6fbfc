"""Quality's section of a comparison as view models: the paired table, each benchmark's
note and flipped items, and A's and B's scores against the gate (harness/view/)."""

from __future__ import annotations

from harness.paired.views import PASSES, flip_lines
from harness.quality.compare import QualityDiff, QualitySection
from harness.quality.stats import score_interval
from harness.view import fmt
from harness.view.chart import Color, Dot, DotRow, Dots
from harness.view.model import Block, Cell, CellLike, Figure, Table, Text, table, text


def _where(task: str, doc_id: object, index: int | None) -> str:
    return f"{task}#{doc_id}" + ("" if index is None else f".{index}")


def quality_table(sec: QualitySection) -> Table:
    rows: list[list[CellLike]] = [
        [
            q.title,
            fmt.num(q.score_a, ".3f"),
            fmt.num(q.score_b, ".3f"),
            fmt.signed(q.diff, 3),
            str(q.n_pairs),
            str(q.b_only),
            str(q.a_only),
            fmt.p_value(q.mcnemar_p),
            f"{q.threshold:.3f}",
            Cell(fmt.yes_no(q.passed_b), PASSES[q.passed_b]),
            fmt.num(q.pass_probability_b, ".2f"),
        ]
        for q in sec.benchmarks
    ]
    cols = ["benchmark", "A", "B", "Δ", "pairs", "B only ✓", "A only ✓", "McNemar p", "gate"]
    cols += ["B passes", "P(pass)"]
    return table("compare-quality", "quality (paired per item)", cols, rows, left=["benchmark"])


def quality_notes(q: QualityDiff) -> list[Text]:
    flips = [
        f"{'✗→✓' if i.correct_b else '✓→✗'} {q.title} {_where(i.task, i.doc_id, i.index)}: "
        f"A {i.answer_a[:60]!r} B {i.answer_b[:60]!r} target {i.target[:40]!r}"
        for i in q.flipped
    ]
    return [text(f"{q.title}: {q.note}" if q.note else ""), flip_lines(flips)]


def quality_chart(sec: QualitySection) -> Dots | None:
    """A's and B's score per benchmark, B's 95 % sampling interval, and the gate threshold."""
    rows: list[DotRow] = []
    for q in sec.benchmarks:
        if q.score_a is None and q.score_b is None:
            continue
        dots: list[Dot] = []
        interval = None
        color: Color = "good" if q.passed_b else "bad"
        if q.score_a is not None:
            dots.append(Dot(q.score_a, "neutral", "o", "A"))
        if q.score_b is not None:
            ci = score_interval(q.score_b, q.n_b)
            interval = (ci.low, ci.high) if ci is not None else None
            dots.append(Dot(q.score_b, color, "D", "B"))
        rows.append(DotRow(q.title, tuple(dots), interval, color, tick=q.threshold))
    if not rows:
        return None
    return Dots(
        key="compare-quality",
        title="",
        caption="quality of A and B against the gate",
        alt="quality scores A and B",
        rows=tuple(rows),
        xlabel="score (bar: threshold; line: B's 95 % sampling interval)",
        xlim=(0.0, 1.0),
    )


def blocks(sec: QualitySection) -> list[Block | None]:
    chart = quality_chart(sec)
    return [
        quality_table(sec),
        *(t for q in sec.benchmarks for t in quality_notes(q)),
        Figure(chart) if chart else None,
    ]
