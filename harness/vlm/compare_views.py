"""VLM's section of a comparison as view models: TTFT and tok/s paired per sample, the
accuracy line and the flipped samples (harness/view/)."""

from __future__ import annotations

from harness.paired.views import diff_cells, flip_lines
from harness.view import fmt
from harness.view.model import Block, CellLike, table, text
from harness.vlm.compare import VlmDiff


def blocks(v: VlmDiff) -> list[Block | None]:
    rows: list[list[CellLike]] = [
        [
            m.metric,
            *diff_cells(m.mean_a, m.mean_b, m.diff, m.diff_pct, m.ci95, m.verdict, 2),
        ]
        for m in (v.ttft, v.tok_s)
    ]
    cols = ["metric", "mean A", "mean B", "Δ", "Δ %", "95 % CI", "verdict"]
    title = f"VLM (paired by question_id, {v.n_pairs} pairs)"
    flips = [
        f"{'✗→✓' if f.correct_b else '✓→✗'} {f.question_id}: A {f.prediction_a[:60]!r} "
        f"B {f.prediction_b[:60]!r} answers {f.answers[:3]!r}"
        for f in v.flipped
    ]
    return [
        table("compare-vlm", title, cols, rows, left=["metric", "verdict"]),
        text(
            f"VLM accuracy ({v.accuracy_metric}): A {fmt.num(v.accuracy_a, '.3f')} → "
            f"B {fmt.num(v.accuracy_b, '.3f')}, B only right {v.b_only}, A only right "
            f"{v.a_only}, McNemar p {fmt.p_value(v.mcnemar_p)}"
        ),
        flip_lines(flips),
    ]
