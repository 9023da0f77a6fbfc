"""Pure scoring: per-level verified tok/s, the weighted score, and level summaries.

tok/s of a level = verified (prompt + completion) tokens of its timed requests /
the level's wall time (first timed send → last timed response). The score is
the weighted sum of the levels' tok/s with the profile's weights
(docs/throughput.md). No I/O and no clocks here: every function is tested with
literal numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from harness.kinds.record import KindScore
from harness.stats.summary import achieved_concurrency, dist
from harness.throughput.report import LevelResult, RequestRow, SpotResult, ThroughputReport
from harness.usage import UsageVerdict, verdicts

# The weighted score as every page writes it (the gate's headline and reasons, the sweep's
# console and report.html, the ledger): whole tok/s with thousands commas, 5,800,834. The
# kind's record adds the grader's score (harness/throughput/kind.py).
SCORE: KindScore[ThroughputReport] = KindScore("weighted tok/s", lambda r: r.score, spec=",.0f")


def tok_per_s(tokens: int, wall_s: float | None) -> float | None:
    if wall_s is None or wall_s <= 0:
        return None
    return tokens / wall_s


def weighted_score(tok_s: Mapping[int, float | None], weights: Mapping[int, float]) -> float | None:
    """Σ weight(level) × tok/s(level) over the measured levels; None if a level has no rate."""
    if not tok_s:
        return None
    total = 0.0
    for level, rate in tok_s.items():
        if rate is None:
            return None
        total += weights[level] * rate
    return total


def score_from_levels(levels: Sequence[LevelResult]) -> float | None:
    """The score recomputed from a report's levels (weights recorded per level)."""
    return weighted_score(
        {lv.concurrency: lv.tok_s for lv in levels}, {lv.concurrency: lv.weight for lv in levels}
    )


def wall_seconds(rows: Sequence[RequestRow]) -> float | None:
    """First send → last end of the rows that have both times (failed ones count too:
    the grader's clock runs until its last request returns, whatever it returned)."""
    starts = [r.start_ms for r in rows if r.start_ms is not None]
    ends = [r.end_ms for r in rows if r.end_ms is not None]
    if not starts or not ends:
        return None
    return (max(ends) - min(starts)) / 1000.0


def first_wave_ms(rows: Sequence[RequestRow], concurrency: int) -> float | None:
    """How long after the level's start the first ``concurrency`` requests were all sent."""
    starts = [r.start_ms for r in rows if r.index < concurrency and r.start_ms is not None]
    return max(starts) if starts else None


def summarize_level(
    rows: Sequence[RequestRow],
    *,
    concurrency: int,
    weight: float,
    tolerance: int,
    client_cpu_s: float | None = None,
) -> LevelResult:
    """One level's result from its rows (warm-up rows are ignored)."""
    timed = [r for r in rows if r.phase == "timed"]
    ok = [r for r in timed if r.ok]
    wall = wall_seconds(timed)
    prompt = sum(r.prompt_tokens or 0 for r in ok)
    output = sum(r.output_tokens or 0 for r in ok)
    server_out = [r.server_output_tokens for r in ok]
    usage = verdicts(ok, tolerance)  # the one usage rule (harness/usage.py)
    rate = tok_per_s(prompt + output, wall)
    intervals = [
        (int(r.start_ms * 1e6), int(r.end_ms * 1e6))
        for r in timed
        if r.start_ms is not None and r.end_ms is not None
    ]
    peak, mean = achieved_concurrency(intervals)
    spots = [
        SpotResult(
            level=concurrency,
            index=r.index,
            question=r.spot_question or "",
            expected=r.spot_expected if r.spot_expected is not None else 0,
            passed=bool(r.ok and r.spot_passed),
            answer_excerpt=r.answer_excerpt or (r.error or ""),
        )
        for r in timed
        if r.kind == "spot"
    ]
    return LevelResult(
        concurrency=concurrency,
        weight=weight,
        n_requests=len(timed),
        n_ok=len(ok),
        n_failed=len(timed) - len(ok),
        wall_s=wall,
        prompt_tokens=prompt,
        output_tokens=output,
        server_output_tokens=None
        if any(v is None for v in server_out)
        else sum(v for v in server_out if v is not None),
        tok_s=rate,
        output_tok_s=tok_per_s(output, wall),
        weighted=None if rate is None else weight * rate,
        usage_mismatches=usage.count(UsageVerdict.BELOW),
        usage_unsettled=usage.count(UsageVerdict.UNSETTLED),
        usage_missing=sum(r.server_output_tokens is None for r in ok),
        think_tags=sum(r.think_tag for r in ok),
        finish_reasons=dict(Counter(r.finish_reason or "none" for r in ok)),
        spot_checks=spots,
        e2e_ms=dist([r.e2e_ms for r in ok if r.e2e_ms is not None]),
        output_tokens_per_request=dist(
            [r.output_tokens for r in ok if r.output_tokens is not None]
        ),
        dispatch_lag_ms=dist([r.dispatch_lag_ms for r in timed if r.dispatch_lag_ms is not None]),
        dispatch_lag_steady_ms=dist(
            [
                r.dispatch_lag_ms
                for r in timed
                if r.dispatch_lag_ms is not None and r.index >= concurrency
            ]
        ),
        first_wave_ms=first_wave_ms(timed, concurrency),
        concurrency_max=peak,
        concurrency_mean=round(mean, 3),
        client_cpu_s=client_cpu_s,
        client_busy=None if client_cpu_s is None or not wall else round(client_cpu_s / wall, 4),
    )
