"""Quality A/B: per benchmark, a paired exact McNemar test on per-item correctness.

Items are paired by (task, doc_id) from the per-sample files (samples_<bench>.jsonl);
a list-valued metric (IFEval's instruction-level accuracy) pairs each
instruction as its own item, as that metric counts them. Pure over plain rows; returns
this kind's section of the comparison (:class:`QualitySection`); what makes two quality
runs incomparable is :func:`quality_differences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from harness.paired.comparable import differ, some
from harness.paired.model import CompareSection
from harness.paired.side import CompareSettings, Side
from harness.quality.report import BenchmarkResult, QualityReport
from harness.quality.stats import pass_probability
from harness.stats.binomial import mcnemar_exact


class FlippedItem(BaseModel):
    task: str
    doc_id: int | str | None
    index: int | None = None  # instruction index for list-valued metrics (IFEval inst-level)
    correct_a: bool
    correct_b: bool
    answer_a: str
    answer_b: str
    target: str


class QualityDiff(BaseModel):
    benchmark: str
    title: str
    metric: str
    score_a: float | None
    score_b: float | None
    diff: float | None
    n_pairs: int  # items scored in both runs
    both_right: int
    both_wrong: int
    b_only: int  # right in B, wrong in A
    a_only: int  # right in A, wrong in B
    mcnemar_p: float | None  # exact, two-sided; None without per-item samples
    threshold: float
    passed_a: bool | None
    passed_b: bool | None
    pass_probability_b: float | None  # P(full-set score ≥ threshold), docs/compare.md
    n_b: int
    flipped: list[FlippedItem] = Field(default_factory=list)
    note: str = ""


class QualitySection(CompareSection):
    """Quality's part of a comparison: one paired test per benchmark both runs scored."""

    benchmarks: list[QualityDiff] = Field(default_factory=list)


QUALITY_BENCH_KEYS = ("task", "metric", "thinking", "max_tokens_sent", "client", "n")
ANSWER_CHARS = 200
Key = tuple[str, Any, int | None]


def _correct(value: Any) -> list[bool] | bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value) >= 0.5
    if isinstance(value, list) and all(isinstance(v, bool | int | float) for v in value):
        return [float(v) >= 0.5 for v in value]
    return None


def _answer(row: dict[str, Any]) -> str:
    extracted = row.get("extracted")
    text = extracted if extracted not in (None, "", "[invalid]") else row.get("response")
    return str(text or "")[:ANSWER_CHARS]


def items(rows: Sequence[dict[str, Any]], metric: str) -> dict[Key, tuple[bool, dict[str, Any]]]:
    """(task, doc_id, instruction index) → (correct, row), from the metric's own filter."""
    filt = metric.partition(",")[2]
    main = [r for r in rows if r.get("filter") == filt] or list(rows)
    out: dict[Key, tuple[bool, dict[str, Any]]] = {}
    for r in main:
        c = _correct(r.get("correct"))
        task, doc = str(r.get("task")), r.get("doc_id")
        if isinstance(c, list):
            for k, ck in enumerate(c):
                out.setdefault((task, doc, k), (ck, r))
        elif c is not None:
            out.setdefault((task, doc, None), (c, r))
    return out


def _sort_key(key: Key) -> tuple[str, str, int]:
    task, doc, k = key
    return task, f"{doc:>12}" if isinstance(doc, int) else str(doc), -1 if k is None else k


def compare_benchmark(
    a: BenchmarkResult,
    b: BenchmarkResult,
    rows_a: Sequence[dict[str, Any]],
    rows_b: Sequence[dict[str, Any]],
) -> QualityDiff:
    ia, ib = items(rows_a, a.metric), items(rows_b, b.metric)
    common = sorted(set(ia) & set(ib), key=_sort_key)
    counts = {"both_right": 0, "both_wrong": 0, "b_only": 0, "a_only": 0}
    flipped: list[FlippedItem] = []
    for key in common:
        (ca, ra), (cb, rb) = ia[key], ib[key]
        if ca and cb:
            counts["both_right"] += 1
        elif not ca and not cb:
            counts["both_wrong"] += 1
        else:
            counts["b_only" if cb else "a_only"] += 1
            flipped.append(
                FlippedItem(
                    task=key[0],
                    doc_id=key[1],
                    index=key[2],
                    correct_a=ca,
                    correct_b=cb,
                    answer_a=_answer(ra),
                    answer_b=_answer(rb),
                    target=str(rb.get("target") or ""),
                )
            )
    notes: list[str] = []
    if not rows_a or not rows_b:
        notes.append("no per-sample file in " + ("A" if not rows_a else "B") + ": no paired test")
    unpaired = len(set(ia) ^ set(ib))
    if unpaired:
        notes.append(f"{unpaired} items scored in one run only (not paired)")
    paired = bool(common)
    score_diff = b.score - a.score if a.score is not None and b.score is not None else None
    return QualityDiff(
        benchmark=b.name,
        title=b.title,
        metric=b.metric,
        score_a=a.score,
        score_b=b.score,
        diff=score_diff,
        n_pairs=len(common),
        mcnemar_p=mcnemar_exact(counts["b_only"], counts["a_only"]) if paired else None,
        threshold=b.threshold,
        passed_a=a.passed,
        passed_b=b.passed,
        # the same score test as the gate's and the console's interval (quality/stats.py)
        pass_probability_b=pass_probability(b.score, b.n, b.threshold),
        n_b=b.n,
        flipped=flipped,
        note="; ".join(notes),
        **counts,
    )


def compare_quality(
    a: QualityReport,
    b: QualityReport,
    samples_a: dict[str, list[dict[str, Any]]],
    samples_b: dict[str, list[dict[str, Any]]],
) -> list[QualityDiff]:
    by_name = {x.name: x for x in a.benchmarks}
    return [
        compare_benchmark(by_name[x.name], x, samples_a.get(x.name, []), samples_b.get(x.name, []))
        for x in b.benchmarks
        if x.name in by_name
    ]


def quality_differences(
    a: QualityReport,
    b: QualityReport,
    samples_a: dict[str, list[dict[str, Any]]],
    samples_b: dict[str, list[dict[str, Any]]],
) -> list[str]:
    diffs = some(
        [
            differ("quality limit", a.limit, b.limit),
            differ("lm-eval version", a.lm_eval_version, b.lm_eval_version),
        ]
    )
    ba = {x.name: x for x in a.benchmarks}
    bb = {x.name: x for x in b.benchmarks}
    if set(ba) != set(bb):
        diffs.append(f"benchmarks: A {sorted(ba)}, B {sorted(bb)}")
    for name in sorted(set(ba) & set(bb)):
        for key in QUALITY_BENCH_KEYS:
            d = differ(f"{name} {key}", getattr(ba[name], key), getattr(bb[name], key))
            if d:
                diffs.append(d)
        d = _data_difference(name, samples_a.get(name, []), samples_b.get(name, []))
        if d:
            diffs.append(d)
    return diffs


def _data_difference(name: str, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> str | None:
    """The same document id must carry the same prompt in both runs (same data, same template)."""
    prompts_a = {(r.get("task"), r.get("doc_id")): r.get("prompt") for r in a}
    for r in b:
        key = (r.get("task"), r.get("doc_id"))
        if key in prompts_a and prompts_a[key] != r.get("prompt"):
            return f"{name} data: document {key[0]}#{key[1]} has a different prompt in B"
    return None


def differences(a: Side[QualityReport], b: Side[QualityReport]) -> tuple[list[str], list[str]]:
    """Each side's extra is its per-sample records by benchmark (``samples_beside``)."""
    return quality_differences(a.report, b.report, a.extra or {}, b.extra or {}), []


def section(a: Side[QualityReport], b: Side[QualityReport], s: CompareSettings) -> QualitySection:
    return QualitySection(
        benchmarks=compare_quality(a.report, b.report, a.extra or {}, b.extra or {})
    )


def legacy(data: dict[str, Any]) -> dict[str, Any] | None:
    """Quality's section from a compare.json before schema 4 (its key ``quality`` at the
    top), taken out of ``data``; None when it held none."""
    benchmarks = data.pop("quality", None) or []
    return {"benchmarks": benchmarks} if benchmarks else None
