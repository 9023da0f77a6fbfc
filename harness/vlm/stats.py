"""Pure statistics of a VLM run: the official means, the score, bootstrap CIs.

The official aggregation (spec: "Aggregation and output") is the plain mean of
per-sample TTFT seconds ×1000 and of per-sample tok/s, each rounded to 2
digits, over the samples that did not fail (TTFT finite and tok/s ≠ 0).
Harness adds, labelled as its own: bootstrap 95 % CIs (resampling samples, so
TTFT and tok/s of one sample move together), the total-tokens / total-time
rate beside the mean of rates, and a least-squares slope of TTFT on visual tokens.
Distributions are :func:`harness.stats.summary.dist` (the one summary type).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BOOTSTRAP_SEED = 20260
BOOTSTRAP_ROUNDS = 2000


@dataclass(frozen=True)
class ScoreTerms:
    accuracy: float | None
    ttft_ms: float | None
    tok_s: float | None
    accuracy_term: float | None
    ttft_term: float | None
    throughput_term: float | None
    score: float | None


def official_mean_ms(ttfts_s: Sequence[float], digits: int = 2) -> float | None:
    """``round(mean(ttft_s) * 1000, 2)``; None when no sample counted (the official null)."""
    return round(sum(ttfts_s) / len(ttfts_s) * 1000, digits) if ttfts_s else None


def official_mean_rate(rates: Sequence[float], digits: int = 2) -> float:
    """``round(mean(tok/s), 2)``; 0.0 when no sample counted (as the official script)."""
    return round(sum(rates) / len(rates), digits) if rates else 0.0


def score_terms(
    accuracy: float | None,
    ttft_ms: float | None,
    tok_s: float | None,
    *,
    baseline_ttft_ms: float,
    baseline_tok_s: float,
    weights: tuple[float, float, float],
) -> ScoreTerms:
    """Final = w_a·Acc + w_t·(B_ttft − TTFT)/B_ttft + w_p·(tok_s − B_tok)/B_tok (no upper bound)."""
    wa, wt, wp = weights
    acc_t = wa * accuracy if accuracy is not None else None
    ttft_t = wt * (baseline_ttft_ms - ttft_ms) / baseline_ttft_ms if ttft_ms is not None else None
    tput_t = wp * (tok_s - baseline_tok_s) / baseline_tok_s if tok_s is not None else None
    parts = (acc_t, ttft_t, tput_t)
    total = sum(p for p in parts if p is not None) if all(p is not None for p in parts) else None
    return ScoreTerms(accuracy, ttft_ms, tok_s, acc_t, ttft_t, tput_t, total)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


def bootstrap_means(
    ttft_ms: Sequence[float],
    tok_s: Sequence[float],
    accuracy: Sequence[float] | None = None,
    *,
    baseline_ttft_ms: float,
    baseline_tok_s: float,
    weights: tuple[float, float, float],
    rounds: int = BOOTSTRAP_ROUNDS,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Interval]:
    """95 % percentile CIs of mean TTFT, mean tok/s and (with accuracies) the score.

    ``ttft_ms`` and ``tok_s`` are paired per counted sample; ``accuracy`` (per
    sample, same order) is resampled with them when given.
    """
    n = len(ttft_ms)
    if n < 2 or len(tok_s) != n:
        return {}
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(rounds, n))
    t = np.asarray(ttft_ms, dtype=float)[idx].mean(axis=1)
    r = np.asarray(tok_s, dtype=float)[idx].mean(axis=1)
    out = {
        "ttft_ms": Interval(float(np.percentile(t, 2.5)), float(np.percentile(t, 97.5))),
        "tok_s": Interval(float(np.percentile(r, 2.5)), float(np.percentile(r, 97.5))),
    }
    if accuracy is not None and len(accuracy) == n:
        wa, wt, wp = weights
        a = np.asarray(accuracy, dtype=float)[idx].mean(axis=1)
        s = (
            wa * a
            + wt * (baseline_ttft_ms - t) / baseline_ttft_ms
            + wp * (r - baseline_tok_s) / baseline_tok_s
        )
        out["score"] = Interval(float(np.percentile(s, 2.5)), float(np.percentile(s, 97.5)))
    return out


def total_rate(tokens: Sequence[int], seconds: Sequence[float]) -> float | None:
    """Total tokens / total time: the rate a long job sees, beside the official mean of rates."""
    total_s = sum(seconds)
    return sum(tokens) / total_s if total_s > 0 else None


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Least-squares slope of ys on xs (e.g. TTFT ms per visual token); None if undefined."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    return float(np.polyfit(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), 1)[0])
