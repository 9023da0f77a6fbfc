"""From records to rows to bucket results: token counting and timing derivations.

Definitions (docs/timing.md): TTFT = send → first event carrying text;
TPOT = (t_last - t_first) / (n_out - 1); ITL per token = an event's gap spread
over the tokens it carries; E2E official = send → JSON parsed, strict = send →
last text event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from harness.client.records import RequestRecord
from harness.latency.network_report import row_conn
from harness.latency.report import BucketResult, RequestRow
from harness.profiles import Bucket
from harness.stats.summary import dist, speedup
from harness.tokenizer import Tokenizer
from harness.usage import UsageVerdict, verdicts


def strip_think(text: str, close: str = "</think>") -> str:
    """The grader strips a think block only after timing; we do the same for answers."""
    return text.split(close, 1)[1].lstrip() if close in text else text


def event_token_counts(rec: RequestRecord, tok: Tokenizer) -> list[int]:
    """Tokens carried by each event: differences of the cumulative re-tokenised count."""
    counts: list[int] = []
    text = ""
    prev = 0
    for ev in rec.events:
        text += ev.reasoning + ev.text
        now = tok.count(text)
        counts.append(max(0, now - prev))
        prev = max(prev, now)
    return counts


def itl_values(rec: RequestRecord, per_event_tokens: Sequence[int]) -> list[float]:
    """Per-token inter-token latencies in ms (the first event's tokens have none)."""
    out: list[float] = []
    for k in range(1, len(rec.events)):
        n = per_event_tokens[k]
        if n <= 0:
            continue
        gap = (rec.events[k].t_ns - rec.events[k - 1].t_ns) / 1e6
        out.extend([gap / n] * n)
    return out


def to_row(
    rec: RequestRecord,
    *,
    bucket: str,
    mode: Literal["official", "strict"],
    phase: Literal["warmup", "timed"],
    index: int,
    prompt_tokens: int | None,
    tok: Tokenizer,
) -> tuple[RequestRow, list[float]]:
    """A request's row, and its per-token ITLs (strict streams only)."""
    out_tokens = tok.count(rec.reasoning + rec.text) if rec.ok else None
    row = RequestRow(
        bucket=bucket,
        mode=mode,
        phase=phase,
        index=index,
        ok=rec.ok,
        status=rec.status,
        error=rec.error.one_line() if rec.error else None,
        error_kind=str(rec.error.kind) if rec.error else None,
        error_body=(rec.error.body_excerpt or None) if rec.error else None,
        resent=rec.resent,
        prompt_tokens=prompt_tokens,
        server_prompt_tokens=rec.usage_prompt_tokens,
        output_tokens=out_tokens,
        server_output_tokens=rec.usage_completion_tokens,
        finish_reason=rec.finish_reason,
        e2e_ms=rec.e2e_ms if rec.ok else None,
        dispatch_lag_ms=rec.dispatch_lag_ms,
        empty_choices=rec.empty_choices,
        conn=row_conn(rec.conn, rec.send_ns),
    )
    itls: list[float] = []
    if rec.stream and rec.ok:
        row.ttft_ms = rec.ttft_ms
        row.end_of_stream_ms = rec.ms(rec.end_ns)
        row.n_chunks = len(rec.events)
        if out_tokens and out_tokens > 1 and rec.first_token_ns and rec.last_token_ns:
            row.tpot_ms = (rec.last_token_ns - rec.first_token_ns) / 1e6 / (out_tokens - 1)
        itls = itl_values(rec, event_token_counts(rec, tok))
    return row, itls


def bucket_result(
    bucket: Bucket,
    rows: Sequence[RequestRow],
    *,
    mode: Literal["official", "strict"],
    endpoint: str,
    itls: Sequence[float] = (),
    seed: int = 0,
    usage_tolerance: int = 4,
) -> BucketResult:
    """Aggregate one bucket's rows (pure). Failed timed requests are dropped, as the grader does.

    Usage is judged by the one rule of harness/usage.py: ``n_usage_mismatch`` counts answers
    whose usage is below their text, ``n_usage_unsettled`` those the text cannot explain."""
    timed = [r for r in rows if r.phase == "timed"]
    ok = [r for r in timed if r.ok and r.e2e_ms is not None]
    warm_failed = sum(1 for r in rows if r.phase == "warmup" and not r.ok)
    e2e = [r.e2e_ms for r in ok if r.e2e_ms is not None]
    e2e_dist = dist(e2e, ci=True, seed=seed)
    med = e2e_dist.median
    ci = e2e_dist.ci95
    outs = [r.output_tokens for r in ok if r.output_tokens is not None]
    prompt_counts = [r.prompt_tokens for r in timed if r.prompt_tokens is not None]
    usage = verdicts(ok, usage_tolerance)
    res = BucketResult(
        name=bucket.name,
        mode=mode,
        endpoint=endpoint,
        prompt_tokens_nominal=bucket.prompt_tokens,
        prompt_tokens=prompt_counts[0] if prompt_counts else None,
        max_tokens=bucket.max_tokens,
        baseline_ms=bucket.baseline_ms,
        n_ok=len(ok),
        n_failed=len(timed) - len(ok),
        n_warmup_failed=warm_failed,
        median_ms=med,
        median_ci95=ci,
        speedup=speedup(bucket.baseline_ms, med),
        speedup_ci95=(bucket.baseline_ms / ci[1], bucket.baseline_ms / ci[0])
        if ci and ci[0] > 0
        else None,
        e2e=e2e_dist,
        output_tokens_mean=sum(outs) / len(outs) if outs else None,
        output_tokens_min=min(outs) if outs else None,
        n_short_outputs=sum(1 for r in ok if _short(r, bucket.max_tokens)),
        n_usage_mismatch=usage.count(UsageVerdict.BELOW),
        n_usage_unsettled=usage.count(UsageVerdict.UNSETTLED),
        n_prompt_mismatch=sum(
            1
            for r in ok
            if mode == "strict"
            and r.server_prompt_tokens is not None
            and r.server_prompt_tokens != r.prompt_tokens
        ),
        errors=dict(Counter(r.error_kind or "unknown" for r in timed if not r.ok)),
    )
    if mode == "strict":
        res.ttft = dist([r.ttft_ms for r in ok if r.ttft_ms is not None])
        res.tpot = dist([r.tpot_ms for r in ok if r.tpot_ms is not None])
        res.itl = dist(itls)
        lags = [r.dispatch_lag_ms for r in timed if r.dispatch_lag_ms is not None]
        res.dispatch_lag = dist(lags)
    return res


def _short(row: RequestRow, max_tokens: int) -> bool:
    n = row.server_output_tokens if row.server_output_tokens is not None else row.output_tokens
    return n is not None and n < max_tokens
