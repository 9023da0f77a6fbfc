"""What a comparison shows, as view models: one table per report kind, plots, flips, notes.

``harness compare`` prints these sections and report.html draws them (the
run page of B, from compare.json): the one rendering of a comparison.
"""

from __future__ import annotations

from pathlib import PurePath

from harness.compare.model import (
    CompareReport,
    ManifestDiff,
    QualityDiff,
    ScoreDiff,
    Verdict,
    VlmDiff,
)
from harness.quality.stats import score_interval
from harness.view import fmt
from harness.view.chart import Color, Dot, DotRow, Dots
from harness.view.model import (
    Block,
    Cell,
    CellLike,
    Figure,
    Section,
    Table,
    Text,
    Tone,
    section,
    table,
    text,
)

FLIPS_SHOWN = 20
CHANGES_SHOWN = 20
TONE: dict[str, Tone] = {
    "faster": "good",
    "higher": "good",
    "slower": "bad",
    "lower": "bad",
    "within noise": "dim",
    "inconclusive": "warn",
    "no data": "warn",
}
PASSES: dict[bool | None, Tone] = {True: "good", False: "bad", None: "plain"}
COLOR: dict[str, Color] = {"faster": "good", "higher": "good", "slower": "bad", "lower": "bad"}


def verdict(word: Verdict) -> Cell:
    return Cell(word, TONE.get(word, "plain"))


def band(value: float, word: Verdict, digits: int = 1) -> str:
    """The noise band, or "?" where the runs were too short to estimate it (inconclusive)."""
    return "?" if word == "inconclusive" else f"{value:.{digits}f}"


def score_line(label: str, s: ScoreDiff, digits: int) -> Text:
    return text(
        f"{label}: A {fmt.num(s.score_a, f'.{digits}f')} → B {fmt.num(s.score_b, f'.{digits}f')}, "
        f"{fmt.signed(s.diff, digits)} ({fmt.signed(s.diff_pct)} %), "
        f"95 % CI {fmt.ci(s.ci95, digits)}, noise ±{band(s.noise, s.verdict, digits)} ({s.noise_source}) "
        f"→ {s.verdict}",
        tone=TONE.get(s.verdict, "plain"),
    )


def _diff(
    a: float | None,
    b: float | None,
    diff: float | None,
    pct: float | None,
    ci: tuple[float, float] | None,
    word: Verdict,
    digits: int = 1,
    noise: float | None = None,
) -> list[CellLike]:
    """A, B, B − A, its percentage of A, its 95 % CI, [the noise band,] the verdict."""
    spec = f".{digits}f"
    cells: list[CellLike] = [fmt.num(a, spec), fmt.num(b, spec), fmt.signed(diff, digits)]
    cells += [fmt.signed(pct), fmt.ci(ci, digits)]
    return cells + ([] if noise is None else [band(noise, word, digits)]) + [verdict(word)]


def manifest_lines(m: ManifestDiff | None) -> list[Text]:
    """What ran in A and B and every setting that changed, shown above the verdicts."""
    if m is None:
        return []
    if m.config_a is None or m.config_b is None:
        missing = " and ".join(s for s, c in (("A", m.config_a), ("B", m.config_b)) if c is None)
        return [
            text(
                f"what ran: no manifest.json in {missing}: which settings changed is unknown",
                tone="warn",
            )
        ]
    if m.same:
        return [text(f"what ran: the same configuration in A and B (config {m.config_a})")]
    head = f"what ran: config A {m.config_a}, B {m.config_b}"
    if not m.changes:  # ids from another harness version's canonical form
        return [text(head)]
    lines = [f"B: {c.text}" for c in m.changes[:CHANGES_SHOWN]]
    if len(m.changes) > CHANGES_SHOWN:
        lines.append(f"… {len(m.changes) - CHANGES_SHOWN} more settings changed (--json)")
    return [text(head), text(*lines, tone="warn")]


def latency_table(rep: CompareReport) -> Table:
    rows: list[list[CellLike]] = [
        [
            d.mode,
            d.bucket,
            d.metric,
            f"{d.n_a}/{d.n_b}",
            *_diff(
                d.median_a_ms,
                d.median_b_ms,
                d.diff_ms,
                d.diff_pct,
                d.ci95_ms,
                d.verdict,
                noise=d.noise_ms,
            ),
        ]
        for d in rep.latency
    ]
    cols = ["mode", "bucket", "metric", "n A/B", "median A ms", "median B ms", "Δ ms", "Δ %"]
    cols += ["95 % CI ms", "noise ms", "verdict"]
    title = "latency (B − A; positive = B slower)"
    return table("compare-latency", title, cols, rows, left=["mode", "bucket", "metric", "verdict"])


def latency_reasons(rep: CompareReport) -> Text:
    """Why each inconclusive latency row could not be judged (what it needs)."""
    rows = [d for d in rep.latency if d.verdict == "inconclusive"]
    return text(*(f"{d.mode} {d.bucket} {d.metric}: {d.noise_source}" for d in rows), tone="warn")


def throughput_reasons(rep: CompareReport) -> Text:
    """Why each inconclusive throughput level could not be judged (what it needs)."""
    rows = [x for x in rep.throughput if x.verdict == "inconclusive"]
    return text(*(f"level {x.concurrency}: {x.noise_source}" for x in rows), tone="warn")


def latency_chart(rep: CompareReport) -> Dots | None:
    """Δ median (B − A, % of A) per mode / bucket / metric, with its 95 % CI and noise band."""
    rows: list[DotRow] = []
    for d in rep.latency:
        if d.diff_pct is None or not d.median_a_ms:
            continue
        scale = 100 / d.median_a_ms
        color = COLOR.get(d.verdict, "neutral")
        ci = None if d.ci95_ms is None else (d.ci95_ms[0] * scale, d.ci95_ms[1] * scale)
        rows.append(
            DotRow(
                f"{d.mode} {d.bucket} {d.metric}",
                (Dot(d.diff_pct, color),),
                interval=ci,
                interval_color=color,
                band=(-d.noise_ms * scale, d.noise_ms * scale),
            )
        )
    if not rows:
        return None
    return Dots(
        key="compare-latency",
        title="",
        caption="latency difference per bucket with 95 % CI",
        alt="difference of medians B − A per bucket with confidence intervals",
        rows=tuple(rows),
        xlabel="B − A, % of A's median (positive = B slower); grey: noise band",
        zero_line=True,
    )


def _where(task: str, doc_id: object, index: int | None) -> str:
    return f"{task}#{doc_id}" + ("" if index is None else f".{index}")


def flip_lines(items: list[str]) -> Text:
    more = len(items) - FLIPS_SHOWN
    shown = items[:FLIPS_SHOWN] + ([f"… {more} more flipped items (--json)"] if more > 0 else [])
    return text(*shown, bullets=True)


def quality_table(rep: CompareReport) -> Table:
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
        for q in rep.quality
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


def quality_chart(rep: CompareReport) -> Dots | None:
    """A's and B's score per benchmark, B's 95 % sampling interval, and the gate threshold."""
    rows: list[DotRow] = []
    for q in rep.quality:
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


def throughput_table(rep: CompareReport) -> Table:
    rows: list[list[CellLike]] = [
        [
            str(x.concurrency),
            *_diff(x.tok_s_a, x.tok_s_b, x.diff, x.diff_pct, x.ci95, x.verdict, noise=x.noise),
        ]
        for x in rep.throughput
    ]
    cols = ["concurrency", "tok/s A", "tok/s B", "Δ tok/s", "Δ %", "95 % CI", "noise", "verdict"]
    title = "throughput (B − A; positive = B higher)"
    return table("compare-throughput", title, cols, rows, left=["verdict"])


def vlm_blocks(v: VlmDiff) -> list[Block]:
    rows: list[list[CellLike]] = [
        [
            m.metric,
            *_diff(m.mean_a, m.mean_b, m.diff, m.diff_pct, m.ci95, m.verdict, 2),
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


def sections(rep: CompareReport) -> list[Section]:
    lat, qual = latency_chart(rep), quality_chart(rep)
    tp = rep.throughput_score
    return [
        section(
            "compare",
            f"Compare with {PurePath(rep.run_a).name}",
            text(f"A: {rep.run_a}", f"B: {rep.run_b}", f"profile: {rep.profile}"),
            *manifest_lines(rep.manifest),
            latency_table(rep),
            latency_reasons(rep),
            *(score_line(f"{s.mode} score (mean speedup)", s, 3) for s in rep.latency_scores),
            Figure(lat) if lat else None,
            quality_table(rep),
            *(t for q in rep.quality for t in quality_notes(q)),
            Figure(qual) if qual else None,
            throughput_table(rep),
            throughput_reasons(rep),
            score_line("weighted score (tok/s)", tp, 1) if tp else None,
            *(vlm_blocks(rep.vlm) if rep.vlm else []),
            text(*rep.notes, tone="warn", prefix="note: "),
        )
    ]
