"""What a quality run shows, as view models: the benchmark table, its notes, the score plot.

``score_chart`` takes any benchmark-like record: the ledger page draws its
runs' quality with it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from harness.data.samples import SAMPLE_KEY, SAMPLE_REASON
from harness.quality.report import BenchmarkResult, DecideRecord, QualityReport
from harness.quality.stats import score_interval
from harness.view import fmt
from harness.view.chart import Bars, BarSeries, Color
from harness.view.model import Cell, Figure, Section, Table, Text, Tone, section, table, text


class ScoreFigures(Protocol):
    """What the score plot needs: quality.json's benchmarks and the ledger's scores have it."""

    @property
    def title(self) -> str: ...
    @property
    def score(self) -> float | None: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def passed(self) -> bool | None: ...
    @property
    def n(self) -> int: ...


def _verdict(b: BenchmarkResult) -> Cell:
    if b.error:
        return Cell("ERROR", "bad")
    return Cell("PASS", "good") if b.passed else Cell("FAIL", "bad")


def benchmark_table(rep: QualityReport) -> Table:
    rows = [
        [
            b.title,
            fmt.num(b.judged_score, ".4f"),  # the grader's round(score, 4), the one judged
            _interval_cell(b),
            f"{b.threshold:.3f}",
            _verdict(b),
            str(b.n),
            "on" if b.thinking else "off",
            fmt.text(b.max_tokens_sent),
            f"{b.wall_s:.1f}",
            f"{b.concurrency_max}/{b.concurrency_mean:.1f}",
            f"{b.errors}/{b.requests}",
        ]
        for b in rep.benchmarks
    ]
    cols = ["benchmark", "score", "95 % interval", "gate", "verdict", "n", "think", "max_tok"]
    cols += ["wall s", "conc"]
    cols.append("errors")
    title = f"quality — {rep.url}{rep.endpoint}"
    return table("quality", title, cols, rows, left=["benchmark", "verdict", "think"])


def _interval_cell(b: BenchmarkResult) -> str:
    """The full set's score as the documents scored bound it (Wilson, quality/stats.py);
    an early-stopped ``--decide`` benchmark's own interval is in its note."""
    ci = score_interval(b.score, b.n)
    return "-" if ci is None else f"{ci.low:.3f}–{ci.high:.3f}"


def decide_line(d: DecideRecord) -> str:
    """One line for a ``--decide`` record: documents asked, projection, decision, risk."""
    head = f"--decide asked {d.asked} of {d.total} documents"
    if d.settled_by == "complete":
        return f"{head}: every one, the score is the full set's ({d.decision.upper()})"
    if d.settled_by == "certain":
        why = "certain (no answer of the rest can change it)"
    elif d.settled_by == "risk":
        why = (
            f"error risk ≤ {(d.risk or 0.0) * 100:.2g} % (≤ {d.alpha * 100:g} % allowed) that "
            "the full set lands on the other side"
        )
    else:
        why = "the grader's run would abort"
    return (
        f"{head}, projected {d.projected:.4f} (95 % interval {d.ci_low:.4f}-{d.ci_high:.4f}): "
        f"{d.decision.upper()}, {why}; an estimate: re-run without --decide, same --out, "
        "to complete it from the answer cache"
    )


def _notes(b: BenchmarkResult) -> list[Text]:
    errors = f", errors {b.error_kinds}" if b.error_kinds else ""
    out = [
        text(
            f"{b.title}: {b.metric} (client {b.client}); {b.cached} answers from the resume "
            f"cache, {b.retries} retries, {b.empty_answers} empty answers{errors}"
        )
    ]
    if b.decide is not None:
        out.append(text(f"{b.title}: {decide_line(b.decide)}", tone="warn"))
    if b.error:
        out.append(text(f"{b.title}: {b.error}", tone="bad"))
    if b.grader_abort:
        out.append(
            text(
                f"{b.title}: {b.grader_abort} ({b.grader_aborts} requests; harness's own "
                f"score {fmt.num(b.score, '.4f')})",
                tone="bad",
            )
        )
    if b.other_metrics:
        extra = ", ".join(f"{k} {v:.3f}" for k, v in sorted(b.other_metrics.items()))
        out.append(text(f"{b.title} other metrics: {extra}"))
    if t := b.thinking_stats:
        out.append(
            text(
                f"{b.title} thinking: {t.lost_to_budget}/{t.answers} answers lost to the think "
                f"budget, {t.extracted} answers extracted, mean think tokens "
                f"{fmt.num(t.think_tokens_mean, '.0f')}"
            )
        )
    return out


def subtask_table(b: BenchmarkResult) -> Table:
    rows = [[name, fmt.num(v, ".3f")] for name, v in b.subtasks.items()]
    title = f"{b.title} per subject ({b.metric})"
    return table(f"quality-{b.name}-subjects", title, ["subject", "score"], rows, left=["subject"])


def _interval(score: float | None, n: int) -> tuple[float, float]:
    """The 95 % sampling interval's reach below and above the score (Wilson: within 0..1)."""
    ci = score_interval(score, n)
    if score is None or ci is None:
        return (0.0, 0.0)
    return (max(0.0, score - ci.low), max(0.0, ci.high - score))


def score_chart(rows: Sequence[ScoreFigures], key: str = "quality") -> Bars | None:
    """Score per benchmark with a 95 % sampling interval, and the gate's threshold."""
    shown = [q for q in rows if q.score is not None or q.threshold is not None]
    if not shown:
        return None
    colors: list[Color] = [
        "good" if q.passed else "bad" if q.passed is False else "neutral" for q in shown
    ]
    scores = tuple(q.score for q in shown)
    errors = tuple(_interval(q.score, q.n) for q in shown)
    notes = tuple("" if q.score is None else f"{q.score:.3f} (n={q.n})" for q in shown)
    return Bars(
        key=key,
        title="quality scores (95 % sampling interval) vs gate thresholds (dashed)",
        caption="Quality scores vs thresholds",
        alt="quality bars",
        categories=tuple(q.title for q in shown),
        series=(BarSeries("", scores, colors=tuple(colors), errors=errors, notes=notes),),
        ylabel="score",
        marks=tuple(q.threshold for q in shown),
        mark_label="gate {:.2f}",
        ylim=(0.0, 1.05),
        legend=False,
    )


def sections(rep: QualityReport) -> list[Section]:
    chart = score_chart(rep.benchmarks)
    verdict: dict[bool | None, tuple[str, Tone]] = {
        True: ("PASS", "good"),
        False: ("FAIL", "bad"),
        None: ("INCOMPLETE", "warn"),
    }
    word, tone = verdict[rep.passed]
    settings = {k: v for k, v in rep.non_official.items() if k != SAMPLE_KEY}
    non_official = f"NON-OFFICIAL settings: {settings}" if settings else ""
    sample = rep.non_official.get(SAMPLE_KEY)
    on = f", on {SAMPLE_REASON}" if sample else ""
    limit = "" if rep.limit is None else f"limit {rep.limit:g}"
    return [
        section(
            "quality",
            "Quality",
            benchmark_table(rep),
            *(n for b in rep.benchmarks for n in _notes(b)),
            *(subtask_table(b) for b in rep.benchmarks if b.subtasks),
            text(non_official, tone="warn"),
            text(f"NON-OFFICIAL data: {sample}" if sample else "", tone="warn"),
            text(
                f"quality: {word} in {rep.wall_s:.1f} s" + (f" ({limit})" if limit else "") + on,
                tone="warn" if sample else tone,
            ),
            Figure(chart) if chart else None,
        )
    ]
