"""From the runner's rows to ``throughput.json``: level results, score, verdict and flags."""

from __future__ import annotations

from collections import Counter

from harness.attribution import metrics_enabled
from harness.client.failure import describe
from harness.provenance import Provenance, with_facts
from harness.risk import FlagKind, RiskFlag
from harness.throughput.config import ThroughputConfig
from harness.throughput.report import LevelResult, RequestRow, ThroughputReport
from harness.throughput.scoring import score_from_levels, summarize_level
from harness.throughput.state import ThroughputState
from harness.usage import (
    UsageVerdict,
    how_to_settle,
    judge_usage,
    probe_flags,
    unsettled_line,
)
from harness.view import fmt

# harness's own thresholds (not the grader's):
LAG_FLAG_MS = 10.0  # p99 dispatch lag above this: the client may be holding the server back
BUSY_FLAG = 0.8  # client CPU / wall time above this: the client is close to its ceiling


def _flag(kind: FlagKind, text: str) -> RiskFlag:
    return RiskFlag(kind=kind, text=text, source="throughput")


def level_flags(
    cfg: ThroughputConfig, lv: LevelResult, errors: Counter[str], first_failure: str = ""
) -> list[RiskFlag]:
    c = f"c={lv.concurrency}"
    out: list[RiskFlag] = []

    def add(kind: FlagKind, text: str) -> None:
        out.append(_flag(kind, f"{c}: {text}"))

    if lv.n_failed:
        kinds = ", ".join(f"{k} ×{n}" for k, n in errors.most_common())
        first = f"; first: {first_failure}" if first_failure else ""
        add(
            FlagKind.REQUEST_FAILURES,
            f"{lv.n_failed} of {lv.n_requests} requests failed ({kinds}){first}",
        )
    if lv.usage_mismatches:
        add(
            FlagKind.USAGE_MISMATCH,
            f"usage.completion_tokens is more than {cfg.usage_tolerance} tokens below the "
            f"re-tokenised count in {lv.usage_mismatches} answers (verified counts scored)",
        )
    if lv.usage_missing:
        add(FlagKind.USAGE_MISSING, f"{lv.usage_missing} answers carry no usage.completion_tokens")
    if lv.think_tags:
        add(
            FlagKind.THINKING_LEAK,
            f"{lv.think_tags} answers contain thinking (must be off: no <think>)",
        )
    if lv.n_ok == 0:
        return out  # nothing was served: the client's timing says nothing about a bottleneck
    steady = lv.dispatch_lag_steady_ms
    lag = steady.p99
    if lag is not None and lag > LAG_FLAG_MS:
        said = fmt.tail(lag, steady.tail("p99"), lambda v: f"{fmt.num(v, '.1f')} ms")
        add(
            FlagKind.CLIENT_BOTTLENECK,
            f"client dispatch lag p99 {said} after the first wave (the client may be a bottleneck)",
        )
    if lv.client_busy is not None and lv.client_busy > BUSY_FLAG:
        add(
            FlagKind.CLIENT_BOTTLENECK,
            f"the client was busy {lv.client_busy:.0%} of the level's wall time "
            "(it may be the bottleneck: run it on a machine with more free CPU)",
        )
    return out


def spot_flag(levels: list[LevelResult]) -> RiskFlag | None:
    """One flag for the sweep's failed spot checks, however many: how many of how many, at
    which levels, and the first one (each is in the table's ``spot`` column and in
    ``throughput.json`` → ``levels[].spot_checks``). None when every one passed."""
    failed = [(lv.concurrency, s) for lv in levels for s in lv.spot_checks if not s.passed]
    if not failed:
        return None
    total = sum(len(lv.spot_checks) for lv in levels)
    at = [lv.concurrency for lv in levels if not lv.spot_passed]
    where = "every level" if len(at) == len(levels) else ", ".join(f"c={c}" for c in at)
    level, first = failed[0]
    question = first.question.split("?", 1)[0] + "?" if "?" in first.question else first.question
    got = first.answer_excerpt.replace("\n", " ")[:40]
    return _flag(
        FlagKind.SPOT_CHECK,
        f"{len(failed)} of {total} spot checks failed ({where}; garbage output under load?):"
        f" first c={level} {question!r} expected {first.expected}, got {got!r}"
        " (each: throughput.json levels[].spot_checks)",
    )


def unsettled_rows(cfg: ThroughputConfig, state: ThroughputState) -> list[RequestRow]:
    """Timed answers of finished levels whose usage the text cannot explain (harness/usage.py)."""
    return [
        r
        for r in state.rows
        if r.phase == "timed"
        and r.ok
        and r.level in state.levels_done
        and judge_usage(
            r.output_tokens, r.server_output_tokens, r.finish_reason, cfg.usage_tolerance
        )
        is UsageVerdict.UNSETTLED
    ]


def probe_enabled(cfg: ThroughputConfig) -> bool:
    return metrics_enabled(cfg.usage_probe, cfg.mode)


def usage_findings(
    cfg: ThroughputConfig, state: ThroughputState
) -> tuple[list[RiskFlag], list[str]]:
    """(flags, notes): a flag per probe whose token ids disagree with usage; otherwise one
    informational note when answers stay unsettled (the probe covers the whole sweep)."""
    flags = probe_flags(state.usage_checks, "throughput")
    odd = unsettled_rows(cfg, state)
    if not odd or any(c.result in ("agrees", "disagrees") for c in state.usage_checks):
        return flags, []
    groups: dict[str, list[RequestRow]] = {}
    for r in odd:
        groups.setdefault(f"c={r.level}", []).append(r)
    how = how_to_settle(
        state.usage_checks,
        probe_enabled(cfg),
        "`--usage-probe on` settles it after the sweep with the server's token ids "
        "(a harness extra, outside the grader's requests).",
    )
    return flags, [unsettled_line(list(groups.items()), cfg.usage_tolerance, how)]


def build_report(
    cfg: ThroughputConfig,
    state: ThroughputState,
    provenance: Provenance,
    *,
    complete: bool,
    wall_s: float | None = None,
) -> ThroughputReport:
    levels: list[LevelResult] = []
    # the runner's own flags (today: the model name it had to substitute)
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
        numbers = state.grader.get(level)
        if numbers is not None:
            # official: the grader's wall (before task creation → after gather) and its
            # tok/s rounded before weighting; the row-span wall stays in the rows
            lv.wall_s = numbers.wall_s
            lv.tok_s = numbers.tok_s
            lv.output_tok_s = (
                numbers.verified_completion / numbers.wall_s if numbers.wall_s else None
            )
            lv.weighted = lv.weight * numbers.tok_s
            if numbers.token_discrepancy:
                flags.append(
                    _flag(
                        FlagKind.USAGE_MISMATCH,
                        f"c={level}: server usage differs from the verified counts by more than "
                        f"max({cfg.usage_flag_ratio:.0%}, {cfg.usage_flag_tokens} tokens) "
                        f"(prompt reported {numbers.reported_prompt} vs verified "
                        f"{numbers.verified_prompt}, completion {numbers.reported_completion} vs "
                        f"{numbers.verified_completion}): the grader prints a token-count warning",
                    )
                )
        levels.append(lv)
        failed = [r for r in rows if r.phase == "timed" and not r.ok]
        errors = Counter(r.error_kind or "?" for r in failed)
        first = (
            describe(
                failed[0].status,
                failed[0].error,
                failed[0].error_body,
                model=cfg.model or cfg.profile_model,
                endpoint=cfg.endpoint,
            )
            if failed
            else ""
        )
        flags += level_flags(cfg, lv, errors, first)
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
                    _flag(
                        FlagKind.SHORT_OUTPUTS,
                        f"c={level}: --force-length asked for {cfg.max_tokens} tokens but {short} "
                        "answers are shorter (ignore_eos/min_tokens not honoured?)",
                    )
                )
    spots = spot_flag(levels)
    if spots is not None:
        flags.append(spots)
    non_official = cfg.non_official()
    spots_ok = all(lv.spot_passed for lv in levels)
    any_ok = bool(levels) and all(lv.n_ok > 0 for lv in levels)
    usage_flags, notes = usage_findings(cfg, state)
    flags += usage_flags
    settings = cfg.settings()
    if state.server_models_note:
        settings["server_models"] = state.server_models_note
    report = ThroughputReport(
        provenance=with_facts(
            provenance, tokenizer=cfg.tokenizer, seed=cfg.seed, server_models=state.server_models
        ),
        complete=complete,
        url=cfg.url,
        endpoint=cfg.endpoint,
        model=state.model,
        mode=cfg.mode,
        official=not non_official,
        non_official=non_official,
        settings=settings,
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
        usage_checks=list(state.usage_checks),
        notes=notes,
        requests=list(state.rows),
    )
    if not report.score_complete:
        report.flags.append(
            _flag(
                FlagKind.PARTIAL_SWEEP,
                "score covers only the measured levels "
                f"({', '.join(str(lv.concurrency) for lv in levels) or 'none'}): not comparable "
                "with the leaderboard's full sweep",
            )
        )
    return report
