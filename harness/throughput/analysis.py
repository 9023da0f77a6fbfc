"""From the runner's rows to ``throughput.json``: level results, score, verdict and flags."""

from __future__ import annotations

from collections import Counter

from harness.runs import Provenance
from harness.throughput.config import ThroughputConfig
from harness.throughput.report import LevelResult, ThroughputReport
from harness.throughput.scoring import score_from_levels, summarize_level
from harness.throughput.state import ThroughputState

LAG_FLAG_MS = 10.0
BUSY_FLAG = 0.8  # client CPU / wall time above this: the client is close to its ceiling  # p99 dispatch lag above this: the client may be holding the server back


def level_flags(cfg: ThroughputConfig, lv: LevelResult, errors: Counter[str]) -> list[str]:
    c = f"c={lv.concurrency}"
    out: list[str] = []
    if lv.n_failed:
        kinds = ", ".join(f"{k} ×{n}" for k, n in errors.most_common())
        out.append(f"{c}: {lv.n_failed} of {lv.n_requests} requests failed ({kinds})")
    if lv.usage_mismatches:
        out.append(
            f"{c}: usage.completion_tokens differs from the re-tokenised count by more than "
            f"{cfg.usage_tolerance} tokens in {lv.usage_mismatches} answers (verified counts scored)"
        )
    if lv.usage_missing:
        out.append(f"{c}: {lv.usage_missing} answers carry no usage.completion_tokens")
    if lv.think_tags:
        out.append(f"{c}: {lv.think_tags} answers contain thinking (must be off: no <think>)")
    for s in lv.spot_checks:
        if not s.passed:
            got = s.answer_excerpt.replace("\n", " ")[:80]
            out.append(f"{c}: spot check failed: {s.question} expected {s.expected}, got {got!r}")
    lag = lv.dispatch_lag_steady_ms.p99
    if lag is not None and lag > LAG_FLAG_MS:
        out.append(
            f"{c}: client dispatch lag p99 {lag:.1f} ms after the first wave "
            "(the client may be a bottleneck)"
        )
    if lv.client_busy is not None and lv.client_busy > BUSY_FLAG:
        out.append(
            f"{c}: the client was busy {lv.client_busy:.0%} of the level's wall time "
            "(it may be the bottleneck: run it on a machine with more free CPU)"
        )
    return out


def build_report(
    cfg: ThroughputConfig,
    state: ThroughputState,
    provenance: Provenance,
    *,
    complete: bool,
    wall_s: float | None = None,
) -> ThroughputReport:
    levels: list[LevelResult] = []
    flags = list(state.flags)
    for level in cfg.levels:
        rows = [r for r in state.rows if r.level == level]
        if level not in state.levels_done:
            continue  # interrupted inside this level: its rows stay in `requests`
        lv = summarize_level(
            rows,
            concurrency=level,
            weight=cfg.weights[level],
            tolerance=cfg.usage_tolerance,
            client_cpu_s=state.cpu_s.get(level),
        )
        levels.append(lv)
        errors = Counter(r.error_kind or "?" for r in rows if r.phase == "timed" and not r.ok)
        flags += level_flags(cfg, lv, errors)
        if cfg.force_length:
            short = sum(
                1
                for r in rows
                if r.phase == "timed"
                and r.kind == "random"
                and r.ok
                and (r.output_tokens or 0) < cfg.max_tokens
            )
            if short:
                flags.append(
                    f"c={level}: --force-length asked for {cfg.max_tokens} tokens but {short} "
                    "answers are shorter (ignore_eos/min_tokens not honoured?)"
                )
    non_official = cfg.non_official()
    spots_ok = all(lv.spot_passed for lv in levels)
    any_ok = bool(levels) and all(lv.n_ok > 0 for lv in levels)
    provenance.tokenizer = cfg.tokenizer
    provenance.seed = cfg.seed
    provenance.server_models = state.server_models
    report = ThroughputReport(
        provenance=provenance,
        complete=complete,
        url=cfg.url,
        endpoint=cfg.endpoint,
        model=state.model,
        mode=cfg.mode,
        official=not non_official,
        non_official=non_official,
        settings=cfg.settings(),
        tokenizer=cfg.tokenizer,
        usage_tolerance_tokens=cfg.usage_tolerance,
        levels=levels,
        score=score_from_levels(levels),
        score_complete=complete and [lv.concurrency for lv in levels] == list(cfg.spec.levels),
        spot_checks_passed=spots_ok,
        passed=(spots_ok and any_ok and all(lv.n_failed == 0 for lv in levels))
        if cfg.mode == "strict"
        else None,
        flags=flags,
        wall_s=wall_s,
        requests=list(state.rows),
    )
    if not report.score_complete:
        report.flags.append(
            "score covers only the measured levels "
            f"({', '.join(str(lv.concurrency) for lv in levels) or 'none'}): not comparable "
            "with the leaderboard's full sweep"
        )
    return report
