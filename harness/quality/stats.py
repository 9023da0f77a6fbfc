"""Pure scoring and statistics over plain data (tested with literal numbers)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import ProtocolError
from harness.stats.distributions import Z95, normal_cdf
from harness.stats.intervals import wilson


def effective_limit(limit: float | None, num_docs: int | None) -> float | int | None:
    """lm-eval's ``limit`` for harness's ``--limit`` (docs/quality.md, "--limit").

    A fraction below 1.0 is the grader's QUALITY_LIMIT (the first ceil(f*n) documents);
    1.0 is every document, as the grader reads it (lm-eval itself would read ``1.0`` as
    ONE document, so it becomes ``None``); a whole number above 1 is a count of
    documents, harness's own (non-official) setting. A benchmark with a fixed document
    count (``num_docs``, e.g. Paris GSM8K 200) passes that count.
    """
    if num_docs is not None:
        return int(num_docs)
    if limit is None or limit == 1.0:
        return None
    if limit > 1.0:
        return int(limit)
    return float(limit)


def metric_value(task_results: Mapping[str, Any], metric: str) -> float | None:
    value = task_results.get(metric)
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def benchmark_score(
    results: Mapping[str, Mapping[str, Any]],
    group_subtasks: Mapping[str, Sequence[str]],
    task: str,
    metric: str,
    aggregate: str,
) -> tuple[float, dict[str, float]]:
    """(score, per-subtask scores). ``mean_of_subtasks`` is the unweighted mean of the
    subtasks' metric (the grader's MMLU-Pro score), never lm-eval's group aggregate."""
    if aggregate == "mean_of_subtasks":
        names = list(group_subtasks.get(task, []))
        if not names:
            raise ProtocolError(f"lm-eval returned no subtasks for group {task!r}")
        per: dict[str, float] = {}
        for name in names:
            value = metric_value(results.get(name, {}), metric)
            if value is None:
                raise ProtocolError(f"lm-eval result for {name!r} has no metric {metric!r}")
            per[name] = value
        return sum(per.values()) / len(per), per
    value = metric_value(results.get(task, {}), metric)
    if value is None:
        have = ", ".join(k for k in results.get(task, {}) if "," in k)
        raise ProtocolError(f"lm-eval result for {task!r} has no metric {metric!r} (has: {have})")
    return value, {}


def other_metrics(task_results: Mapping[str, Any], skip: str) -> dict[str, float]:
    """Every other scalar metric lm-eval reported for the task (stderr excluded)."""
    out: dict[str, float] = {}
    for key in task_results:
        if key == skip or "," not in key or "_stderr" in key:
            continue
        v = metric_value(task_results, key)
        if v is not None:
            out[key] = v
    return out


@dataclass(frozen=True)
class ThinkingStats:
    answers: int
    lost_to_budget: int  # cut by max_tokens with the think block still open: no answer
    think_tokens_mean: float | None  # tokens spent thinking (server usage when cut, else counted)
    extracted: int  # answers the benchmark's filter could extract a choice from


def split_think(text: str, think_close: str) -> tuple[str, str] | None:
    """(thinking, answer) when the text closes a think block, else None."""
    if think_close not in text:
        return None
    head, tail = text.split(think_close, 1)
    return head, tail


def thinking_stats(
    answers: Iterable[tuple[str, str, str | None, int | None]],
    *,
    think_close: str,
    count_tokens: Any = None,
    extracted: int = 0,
) -> ThinkingStats:
    """``answers``: (content, reasoning, finish_reason, completion_tokens) per request.

    An answer is lost to the budget when the server stopped at ``max_tokens``
    (``finish_reason == "length"``) before any ``think_close``. Think tokens: the
    reasoning field when the server splits it out, else the text before the close
    tag (counted with ``count_tokens``), else all completion tokens of a lost answer.
    """
    n = lost = 0
    tokens: list[float] = []
    for content, reasoning, finish, completion in answers:
        n += 1
        parts = split_think(content, think_close)
        if parts is None and finish == "length" and not (reasoning and content):
            lost += 1
        think_text = reasoning or (parts[0] if parts else "")
        if think_text and count_tokens is not None:
            tokens.append(float(count_tokens(think_text)))
        elif finish == "length" and parts is None and completion is not None:
            tokens.append(float(completion))
    return ThinkingStats(
        answers=n,
        lost_to_budget=lost,
        think_tokens_mean=(sum(tokens) / len(tokens)) if tokens else None,
        extracted=extracted,
    )


# --- the sampling interval of a limited run's score (gate line, console, compare) ---


@dataclass(frozen=True)
class ScoreInterval:
    """The full set's score as a limited run's ``n`` documents bound it (Wilson, 95 %)."""

    low: float
    high: float
    n: int

    def text(self) -> str:
        return f"95 % interval {self.low:.3f}–{self.high:.3f} at n={self.n}"


def score_interval(score: float | None, n: int, z: float = Z95) -> ScoreInterval | None:
    """The Wilson score interval of an accuracy ``score`` measured on ``n`` documents.

    Honest where ``score ± z·se`` is not: at ``n = 1`` or a score of 0 or 1 it stays
    wide (1 of 1 right: 0.207–1.000), never outside [0, 1]. It is the set of true rates
    that a score test at level ``z`` does not reject, so :func:`pass_probability` (the
    same test against the threshold) is ≥ 0.975 exactly when the whole interval passes.
    None without a score or documents."""
    if score is None or n <= 0:
        return None
    low, high = wilson(min(1.0, max(0.0, float(score))), n, z) or (0.0, 1.0)
    return ScoreInterval(low, high, n)


def pass_probability(score: float | None, n: int, threshold: float) -> float | None:
    """P(the full set's score ≥ ``threshold``), read off the same score test as
    :func:`score_interval`: ``Φ((score − t) / √(t(1 − t)/n))``, the error taken at the
    threshold (so 1 of 1 right against 0.814 is 0.68, not a certainty). A threshold at 0
    or 1 leaves no doubt: 1 or 0. None without a score or documents."""
    if score is None or n <= 0:
        return None
    t = float(threshold)
    if t <= 0.0:
        return 1.0
    if t >= 1.0:
        return 1.0 if score >= 1.0 else 0.0
    zscore = (float(score) - t) / math.sqrt(t * (1.0 - t) / n)
    return normal_cdf(zscore)
