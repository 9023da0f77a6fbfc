"""Latency A/B: per mode, bucket and metric, the difference of medians with a bootstrap CI.

Pure: takes the two reports (and their repeat summaries), returns records.
The noise band a difference must exceed is the larger of the minimum effect
(``min_effect_pct`` of A's median) and, when either run was repeated, the
between-run range of its medians (docs/compare.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.compare.comparable import common_modes
from harness.compare.model import LatencyDiff, ScoreDiff, Verdict
from harness.compare.stats import diff_of_medians_ci, score_diff_ci, verdict
from harness.latency.repeats import RepeatsReport
from harness.latency.report import LatencyReport, RequestRow
from harness.stats import median

SPEED = {"better": "faster", "worse": "slower"}
LEVEL = {"better": "higher", "worse": "lower"}


def samples(rows: Sequence[RequestRow], mode: str, bucket: str, metric: str) -> list[float]:
    """Timed, successful requests' values of ``metric`` (``e2e`` or ``ttft``), in ms."""
    out: list[float] = []
    for r in rows:
        if r.mode != mode or r.bucket != bucket or r.phase != "timed" or not r.ok:
            continue
        v = r.e2e_ms if metric == "e2e" else r.ttft_ms
        if v is not None:
            out.append(v)
    return out


def _between_run(
    reps: Sequence[RepeatsReport | None], mode: str, bucket: str, metric: str
) -> tuple[float, str]:
    """The larger between-run range of this metric's medians over A's and B's repeats."""
    band = 0.0
    counts: list[int] = []
    for rep in reps:
        if rep is None:
            continue
        rb = rep.bucket(mode, bucket)
        rng = None if rb is None else (rb.ttft_range_ms if metric == "ttft" else rb.range_ms)
        if rng is not None:
            band = max(band, rng)
            counts.append(rep.repeats)
    return band, (f"between-run range of {'/'.join(map(str, counts))} repeats" if counts else "")


def _noise(
    median_a: float | None, min_effect_pct: float, spread_ms: float, spread_src: str
) -> tuple[float, str]:
    floor = abs(median_a or 0.0) * min_effect_pct / 100
    if spread_src and spread_ms >= floor:
        return spread_ms, spread_src
    return floor, f"min-effect {min_effect_pct:g} %"


def bucket_diff(
    a: Sequence[float],
    b: Sequence[float],
    *,
    mode: str,
    bucket: str,
    metric: str,
    min_effect_pct: float,
    spread_ms: float = 0.0,
    spread_src: str = "",
    seed: int = 0,
) -> LatencyDiff:
    """One bucket's verdict from the per-request samples of A and B (pure)."""
    ma, mb = median(a), median(b)
    diff = mb - ma if ma is not None and mb is not None else None
    ci = diff_of_medians_ci(a, b, seed=seed)
    noise, src = _noise(ma, min_effect_pct, spread_ms, spread_src)
    v = verdict(diff, ci, noise=noise)
    return LatencyDiff(
        mode=mode,
        bucket=bucket,
        metric=metric,
        n_a=len(a),
        n_b=len(b),
        median_a_ms=ma,
        median_b_ms=mb,
        diff_ms=diff,
        diff_pct=diff / ma * 100 if diff is not None and ma else None,
        ci95_ms=ci,
        noise_ms=noise,
        noise_source=src,
        verdict=_word(v, SPEED),
    )


def _word(v: str, words: dict[str, str]) -> Verdict:
    return words.get(v, v)  # type: ignore[return-value]


def compare_latency(
    a: LatencyReport,
    b: LatencyReport,
    *,
    repeats_a: RepeatsReport | None = None,
    repeats_b: RepeatsReport | None = None,
    min_effect_pct: float = 1.0,
    seed: int = 0,
) -> tuple[list[LatencyDiff], list[ScoreDiff]]:
    diffs: list[LatencyDiff] = []
    scores: list[ScoreDiff] = []
    for mode in common_modes(a, b):
        names = [x.name for x in getattr(a, mode)]
        metrics = ("e2e", "ttft") if mode == "strict" else ("e2e",)
        for name in names:
            for metric in metrics:
                band, src = _between_run((repeats_a, repeats_b), mode, name, metric)
                xa = samples(a.requests, mode, name, metric)
                xb = samples(b.requests, mode, name, metric)
                if metric == "ttft" and not xa and not xb:
                    continue
                diffs.append(
                    bucket_diff(
                        xa,
                        xb,
                        mode=mode,
                        bucket=name,
                        metric=metric,
                        min_effect_pct=min_effect_pct,
                        spread_ms=band,
                        spread_src=src,
                        seed=seed,
                    )
                )
        scores.append(_score_diff(a, b, mode, repeats_a, repeats_b, min_effect_pct, seed))
    return diffs, scores


def _score_of(rep: LatencyReport, mode: str) -> float | None:
    if mode == "official" or not rep.official:
        return rep.score
    return rep.strict_score


def _score_diff(
    a: LatencyReport,
    b: LatencyReport,
    mode: str,
    repeats_a: RepeatsReport | None,
    repeats_b: RepeatsReport | None,
    min_effect_pct: float,
    seed: int,
) -> ScoreDiff:
    buckets = getattr(a, mode)
    names = [x.name for x in buckets]
    sa = [samples(a.requests, mode, n, "e2e") for n in names]
    sb = [samples(b.requests, mode, n, "e2e") for n in names]
    score_a, score_b = _score_of(a, mode), _score_of(b, mode)
    diff = score_b - score_a if score_a is not None and score_b is not None else None
    ci = score_diff_ci(sa, sb, [x.baseline_ms for x in buckets], seed=seed)
    noise = abs(score_a or 0.0) * min_effect_pct / 100
    src = f"min-effect {min_effect_pct:g} %"
    # a report's `score` is its official score when measured, else strict; with both
    # modes the strict one is `strict_score` (and the repeats keep both spreads)
    use_strict = mode == "strict" and bool(a.official)
    ranges = [
        r.strict_score_range if use_strict else r.score_range
        for r in (repeats_a, repeats_b)
        if r is not None
    ]
    present = [x for x in ranges if x is not None]
    if present and max(present) >= noise:
        noise, src = max(present), "between-run range of the score"
    return ScoreDiff(
        mode=mode,
        score_a=score_a,
        score_b=score_b,
        diff=diff,
        diff_pct=diff / score_a * 100 if diff is not None and score_a else None,
        ci95=ci,
        noise=noise,
        noise_source=src,
        verdict=_word(verdict(diff, ci, noise=noise, higher_is_better=True), LEVEL),
    )
