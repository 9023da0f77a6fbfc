"""From measured rows to the report: bucket results, score, official-vs-strict gaps, risk flags.

Pure functions over report data (docs/architecture.md, "Pure modules").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from harness.latency.config import LatencyConfig
from harness.latency.metrics import bucket_result
from harness.latency.procedure import official_procedure
from harness.latency.report import BucketResult, Gap, GapCause, LatencyReport, RequestRow
from harness.latency.state import LatencyState
from harness.risk import FlagKind, RiskFlag
from harness.runs import Provenance
from harness.stats import bootstrap_score_ci, mean_speedup

GAP_TOLERANCE = 0.10  # below a 10 % difference the two modes agree


def explain_gap(off: BucketResult, strict: BucketResult) -> Gap:
    s_off, s_str = off.speedup, strict.speedup
    share = (s_off - s_str) / s_off if s_off and s_str is not None else None
    kind: GapCause = "agree"
    cause = "agree (within 10 %)"
    if off.median_ms is not None and strict.median_ms is not None:
        rel = (strict.median_ms - off.median_ms) / strict.median_ms
        short_off = off.n_ok and off.n_short_outputs / off.n_ok > 0.5
        short_str = strict.n_ok and strict.n_short_outputs / strict.n_ok > 0.5
        if rel > GAP_TOLERANCE and short_off and not short_str:
            kind = "early_stop"
            cause = (
                f"early stop: official responses average {off.output_tokens_mean or 0:.0f} of "
                f"{off.max_tokens} tokens; the grader counts a short answer as fast"
            )
        elif rel > GAP_TOLERANCE:
            kind = "prefix_cache"
            cause = (
                "prefix cache: the official prompt is the same text every time, so the server "
                "skips its prefill; unique prompts are slower"
            )
        elif rel < -GAP_TOLERANCE:
            kind = "strict_faster"
            cause = "strict is faster: streaming or endpoint overhead in the official path"
    elif off.median_ms is None or strict.median_ms is None:
        kind = "no_data"
        cause = "one mode has no successful request"
    return Gap(
        bucket=off.name,
        official_median_ms=off.median_ms,
        strict_median_ms=strict.median_ms,
        official_speedup=s_off,
        strict_speedup=s_str,
        share_of_official_speedup=share,
        cause_kind=kind,
        cause=cause,
    )


def empty_choice_flags(rows: Sequence[RequestRow]) -> list[RiskFlag]:
    """The grader times a 200 without choices as a success: official mode follows it, and
    says so loudly, since such a server is almost certainly broken, not fast."""
    counts = Counter(
        r.bucket for r in rows if r.mode == "official" and r.phase == "timed" and r.empty_choices
    )
    return [
        RiskFlag(
            kind=FlagKind.EMPTY_CHOICES,
            text=f"EMPTY-CHOICES: {n} timed official {name} responses were HTTP 200 with no "
            "choices; the grader times them as successes (so does official mode), but your "
            "server is probably broken: check its answers",
            source="latency",
        )
        for name, n in counts.items()
    ]


def risk_flags(official: Sequence[BucketResult], strict: Sequence[BucketResult]) -> list[RiskFlag]:
    flags: list[RiskFlag] = []

    def add(kind: FlagKind, text: str) -> None:
        flags.append(RiskFlag(kind=kind, text=text, source="latency"))

    for b in official:
        if b.n_short_outputs:
            add(
                FlagKind.EARLY_STOP,
                f"early-stop: {b.n_short_outputs}/{b.n_ok} official {b.name} responses stopped "
                f"before max_tokens={b.max_tokens} (min {b.output_tokens_min} tokens); the grader "
                "times them as faster",
            )
    for b in [*official, *strict]:
        if b.n_failed:
            kinds = ", ".join(f"{k}×{v}" for k, v in sorted(b.errors.items()))
            add(
                FlagKind.REQUEST_FAILURES,
                f"failures: {b.n_failed} timed {b.mode} {b.name} requests failed ({kinds})",
            )
        if b.n_ok == 0:
            add(FlagKind.NO_DATA, f"no-data: every timed {b.mode} {b.name} request failed")
        if b.n_usage_mismatch:
            add(
                FlagKind.USAGE_MISMATCH,
                f"usage-mismatch: {b.n_usage_mismatch} {b.mode} {b.name} responses report "
                "completion_tokens different from the re-tokenised output",
            )
        if b.n_prompt_mismatch:
            add(
                FlagKind.PROMPT_MISMATCH,
                f"prompt-mismatch: in {b.n_prompt_mismatch} strict {b.name} requests the server "
                f"counted a different prompt length than {b.prompt_tokens_nominal} (its tokenizer "
                "is not the one used to build the prompt)",
            )
    return flags


def build_report(
    cfg: LatencyConfig, state: LatencyState, provenance: Provenance, *, complete: bool
) -> LatencyReport:
    official: list[BucketResult] = []
    strict: list[BucketResult] = []
    for bucket in cfg.buckets:
        modes: tuple[tuple[Literal["official", "strict"], list[BucketResult], str], ...] = (
            ("official", official, cfg.endpoint),
            ("strict", strict, cfg.strict_endpoint),
        )
        for mode, out, endpoint in modes:
            rows: list[RequestRow] = [
                r for r in state.rows if r.bucket == bucket.name and r.mode == mode
            ]
            if not rows:
                continue
            out.append(
                bucket_result(
                    bucket,
                    rows,
                    mode=mode,
                    endpoint=endpoint,
                    itls=state.itls.get((mode, bucket.name), []),
                    seed=cfg.seed,
                )
            )
    n_buckets = len(cfg.buckets)

    def score_of(results: list[BucketResult]) -> float | None:
        return mean_speedup([b.speedup for b in results]) if len(results) == n_buckets else None

    def timed_e2e(mode: str, name: str) -> list[float]:
        return [
            r.e2e_ms
            for r in state.rows
            if r.mode == mode
            and r.bucket == name
            and r.phase == "timed"
            and r.ok
            and r.e2e_ms is not None
        ]

    scored = official or strict
    scored_mode = "official" if official else "strict"
    ci = None
    if len(scored) == n_buckets:
        ci = bootstrap_score_ci(
            [timed_e2e(scored_mode, b.name) for b in scored],
            [b.baseline_ms for b in scored],
            seed=cfg.seed,
        )
    gaps = [explain_gap(o, s) for o in official for s in strict if o.name == s.name]
    provenance.server_models = state.server_models
    provenance.tokenizer = cfg.tokenizer
    provenance.seed = cfg.seed
    return LatencyReport(
        mode=cfg.mode,
        complete=complete,
        provenance=provenance,
        settings={
            "endpoint": cfg.endpoint,
            "strict_endpoint": cfg.strict_endpoint,
            "runs": cfg.runs,
            "warmup": cfg.warmup,
            "buckets": [b.name for b in cfg.buckets],
            "timeout_s": cfg.timeout_s,
            "concurrency": cfg.concurrency,
            "force_length": cfg.force_length,
            "new_connection_per_request": cfg.new_connection_per_request,
            "server_models": state.server_models_note or "from GET /v1/models (harness extra)",
            "official_procedure": cfg.spec is not None
            and official_procedure(cfg.runs, cfg.warmup, [b.name for b in cfg.buckets], cfg.spec),
        },
        readiness_s=state.readiness_s,
        official=official,
        strict=strict,
        score=score_of(scored),
        score_ci95=ci,
        strict_score=score_of(strict) if official and strict else None,
        gaps=gaps,
        flags=empty_choice_flags(state.rows) + risk_flags(official, strict),
        requests=list(state.rows),
    )
