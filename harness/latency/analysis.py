"""From measured rows to the report: bucket results, score, official-vs-strict gaps, risk flags.

Pure functions over report data (docs/architecture.md, "Pure modules").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from harness.client.failure import describe
from harness.latency.config import LatencyConfig
from harness.latency.metrics import bucket_result
from harness.latency.procedure import departures, official_procedure, procedure_flag
from harness.latency.report import BucketResult, Gap, GapCause, LatencyReport, RequestRow
from harness.latency.state import LatencyState
from harness.latency.stop_rule import stopped_flag
from harness.latency.until_ci import until_ci_flag, until_ci_record
from harness.latency.usage_check import usage_findings
from harness.provenance import Provenance, with_facts
from harness.risk import FlagKind, RiskFlag
from harness.stats.intervals import bootstrap_score_ci
from harness.stats.summary import Dist, mean_speedup

GAP_TOLERANCE = 0.10  # below a 10 % difference the two modes agree
# official answers faster than this share of what their output tokens cost at the server's
# own decode speed (strict TPOT) skipped their decode: not a prefix cache (prefill only)
DECODE_SHARE = 0.5


def decode_cost_ms(off: BucketResult, strict: BucketResult) -> float | None:
    """What the official answers' output tokens cost at the decode speed the strict
    (unique, streamed) requests measured: a floor a prefix cache cannot go under."""
    tpot = strict.tpot.median if strict.tpot is not None else None
    if tpot is None or off.output_tokens_mean is None:
        return None
    return tpot * max(off.output_tokens_mean - 1, 0)


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
        elif (
            rel > GAP_TOLERANCE
            and (decode := decode_cost_ms(off, strict)) is not None
            and (off.median_ms < DECODE_SHARE * decode)
        ):
            kind = "response_cache"
            cause = (
                f"response cache: official answers took {off.median_ms:.1f} ms, below the "
                f"{decode:.0f} ms their {off.output_tokens_mean or 0:.0f} output tokens cost at "
                "this server's own decode speed; decode was skipped, so answers are cached "
                "(against the rules; harness audit judges it)"
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


def risk_flags(
    official: Sequence[BucketResult],
    strict: Sequence[BucketResult],
    rows: Sequence[RequestRow] = (),
    model: str | None = None,
    usage_tolerance: int = 4,
) -> list[RiskFlag]:
    """The buckets' flags; ``rows`` give a failure count its first failure, in the server's words."""
    flags: list[RiskFlag] = []

    def add(kind: FlagKind, text: str) -> None:
        flags.append(RiskFlag(kind=kind, text=text, source="latency"))

    for gap in (explain_gap(o, s) for o in official for s in strict if o.name == s.name):
        if gap.cause_kind == "response_cache":
            add(FlagKind.RESPONSE_CACHE, f"RESPONSE-CACHE: {gap.cause}")
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
            failed = [
                r
                for r in rows
                if r.bucket == b.name and r.mode == b.mode and r.phase == "timed" and not r.ok
            ]
            first = (
                "; first: "
                + describe(
                    failed[0].status,
                    failed[0].error,
                    failed[0].error_body,
                    model=model if b.mode == "strict" else None,
                    endpoint=b.endpoint,
                )
                if failed
                else ""
            )
            add(
                FlagKind.REQUEST_FAILURES,
                f"failures: {b.n_failed} timed {b.mode} {b.name} requests failed ({kinds}){first}",
            )
        if b.n_ok == 0:
            add(FlagKind.NO_DATA, f"no-data: every timed {b.mode} {b.name} request failed")
        if b.n_usage_mismatch:
            add(
                FlagKind.USAGE_MISMATCH,
                f"usage-mismatch: {b.n_usage_mismatch} {b.mode} {b.name} responses report "
                f"usage.completion_tokens more than {usage_tolerance} tokens below their "
                "re-tokenised text (the text proves those tokens were generated)",
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
    cfg: LatencyConfig,
    state: LatencyState,
    provenance: Provenance,
    *,
    complete: bool,
    pooled: bool = False,
) -> LatencyReport:
    """The report of what ``state`` holds. ``pooled``: the rows of several repeats pooled
    (their ``--until-ci`` records stay in each repeat's own report)."""
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
            result = bucket_result(
                bucket,
                rows,
                mode=mode,
                endpoint=endpoint,
                itls=state.itls.get((mode, bucket.name), []),
                seed=cfg.seed,
                usage_tolerance=cfg.usage_tolerance,
            )
            kept_itl = state.itl_summaries.get((mode, bucket.name))
            if kept_itl is not None:  # a bucket kept by --resume: its samples are not here
                result.itl = kept_itl
            if cfg.until_ci is not None and not pooled:
                result.until_ci = until_ci_record(rows, cfg.until_ci, cfg.runs, cfg.until_ci_at)
            out.append(result)
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
    stopped_early = until_ci_flag([*official, *strict])
    if state.stopped_by:  # a caller's stop rule ended the run (harness/latency/stop_rule.py)
        stopped_early.append(stopped_flag(state.stopped_by))
    usage_flags, notes = usage_findings(cfg, state.rows, state.usage_checks)
    names = [b.name for b in cfg.buckets]
    settings: dict[str, object] = {"runs": cfg.runs, "warmup": cfg.warmup, "buckets": names}
    procedure = procedure_flag(settings, cfg.spec) if cfg.spec is not None else None
    return LatencyReport(
        mode=cfg.mode,
        complete=complete and not state.stopped_by,
        provenance=with_facts(
            provenance, tokenizer=cfg.tokenizer, seed=cfg.seed, server_models=state.server_models
        ),
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
            # strict prompts derive from it (docs/timing.md, "Seeds"); --seed replays the run
            "seed": cfg.seed,
            "seed_source": "drawn" if cfg.seed_drawn else "given",
            "usage_tolerance": cfg.usage_tolerance,
            "until_ci": cfg.until_ci,
            "until_ci_at": cfg.until_ci_at,
            # a bucket stopped early by --until-ci is an estimate, not the grader's procedure
            "official_procedure": cfg.spec is not None
            and not stopped_early
            and official_procedure(cfg.runs, cfg.warmup, names, cfg.spec),
            # what differs from the grader's runs, warm-ups and buckets (the headline says it)
            "departures": departures(cfg.runs, cfg.warmup, names, cfg.spec)
            if cfg.spec is not None
            else None,
            # (mode, bucket) pairs measured to their end: --resume keeps them
            "finished_buckets": [f"{m}/{b}" for m, b in state.finished_buckets],
            # why a caller's stop rule ended the run early (tune's race), else absent
            **({"stopped_by": state.stopped_by} if state.stopped_by else {}),
            # which repetition of a --repeats run this is (harness/latency/repeats_resume.py)
            **({"repeat": dict(cfg.repeat)} if cfg.repeat is not None else {}),
        },
        readiness_s=state.readiness_s,
        official=official,
        strict=strict,
        score=score_of(scored),
        score_ci95=ci,
        strict_score=score_of(strict) if official and strict else None,
        gaps=gaps,
        flags=empty_choice_flags(state.rows)
        + risk_flags(official, strict, state.rows, cfg.model, cfg.usage_tolerance)
        + usage_flags
        + stopped_early
        + ([procedure] if procedure is not None else []),
        usage_checks=list(state.usage_checks),
        notes=notes,
        requests=list(state.rows),
    )


# The self-test's judgement (docs/timing.md, "The client's own error"): its TTFT error tail
# (the largest of its 10 requests: too few for a p99, harness/stats/tails.py) against the
# smallest median the run reports. Above 10 % of it, the client's own delay
# could move that figure by a tenth; below 10 ms it never counts (scheduler jitter on an
# idle general-purpose machine: the idle self-test shows a p99 of 1-4 ms on 2 cores).
SELFTEST_SHARE = 0.10
SELFTEST_FLOOR_MS = 10.0


def smallest_median(rep: LatencyReport) -> tuple[str, float] | None:
    """The smallest median the report measures: official E2E, strict TTFT or strict E2E."""
    found: list[tuple[str, float]] = []
    for b in rep.official:
        if b.median_ms is not None:
            found.append((f"official {b.name} E2E", b.median_ms))
    for b in rep.strict:
        if b.ttft is not None and b.ttft.median is not None:
            found.append((f"strict {b.name} TTFT", b.ttft.median))
        if b.median_ms is not None:
            found.append((f"strict {b.name} E2E", b.median_ms))
    return min(found, key=lambda x: x[1]) if found else None


def selftest_tail(d: Dist) -> tuple[float | None, str]:
    """The self-test's TTFT error tail as far as its samples show it (harness/stats/tails.py): the
    conservative p99 estimate from 662 requests on, else the largest error seen (10 requests
    can show no p99: their empirical p99 is the largest sample, nearly). With its words."""
    claim = d.tail("p99")
    if claim is not None and claim.sufficient and claim.estimate is not None:
        return claim.estimate, f"p99 ≤ {claim.estimate:,.1f} ms at {claim.confidence:.0%}"
    if d.max is None or claim is None:
        return None, ""
    return d.max, (
        f"{d.max:,.1f} ms at worst of {d.n} requests (too few for a p99: "
        f"{claim.n} of {claim.min_samples} needed)"
    )


def selftest_flags(rep: LatencyReport) -> list[RiskFlag]:
    """SELF_TEST_ERROR when the calibration's TTFT error tail (:func:`selftest_tail`) is over
    max(SELFTEST_FLOOR_MS, SELFTEST_SHARE x the smallest reported median)."""
    cal = rep.calibration
    err, said = selftest_tail(cal.ttft_error_ms) if cal is not None else (None, "")
    smallest = smallest_median(rep)
    if err is None or smallest is None:
        return []
    label, value = smallest
    limit = max(SELFTEST_FLOOR_MS, SELFTEST_SHARE * value)
    if err <= limit:
        return []
    med = cal.ttft_error_ms.median if cal is not None else None
    text = (
        f"self-test: the client's own TTFT error reached {said} (median "
        f"{med or 0:,.1f} ms) against the simulator, over {limit:,.1f} ms (the larger of "
        f"{SELFTEST_FLOOR_MS:.0f} ms and 10 % of the smallest median measured, {label} "
        f"{value:,.1f} ms): the machine running harness was "
        "too busy for these timings to be trusted; re-run with the client machine idle"
    )
    return [RiskFlag(kind=FlagKind.SELF_TEST_ERROR, text=text, source="latency")]
