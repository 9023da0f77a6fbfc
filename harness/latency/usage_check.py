"""Latency's side of the usage rule (harness/usage.py): what to probe, flags and the one note.

Pure functions over rows and probe results; the probes themselves are sent by
``runner.run_probes``. After the buckets (outside every timed window and every ``/metrics`` scrape), one
probe per bucket whose answers' usage the text cannot explain: the prompt of the
first such answer sent again to the strict endpoint, not streamed, asking for the
token ids. A harness extra, so ``--usage-probe auto`` sends it only outside pure
official mode (``on`` sends it after an official run too: the grader's requests are
all done by then). Only a probe whose token ids disagree with its usage is flagged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.attribution import metrics_enabled
from harness.latency.config import LatencyConfig
from harness.latency.report import RequestRow
from harness.latency.state import LatencyState
from harness.profiles import Bucket
from harness.risk import RiskFlag
from harness.usage import (
    UsageCheck,
    UsageVerdict,
    how_to_settle,
    judge_usage,
    probe_flags,
    unsettled_line,
)


@dataclass(frozen=True)
class Target:
    bucket: Bucket
    row: RequestRow  # the first timed answer whose usage is unsettled


def unsettled_rows(rows: Sequence[RequestRow], tolerance: int) -> list[RequestRow]:
    """Timed, successful answers whose usage the text cannot explain, in measured order."""
    return [
        r
        for r in rows
        if r.phase == "timed"
        and r.ok
        and judge_usage(r.output_tokens, r.server_output_tokens, r.finish_reason, tolerance)
        is UsageVerdict.UNSETTLED
    ]


def probe_targets(cfg: LatencyConfig, state: LatencyState) -> list[Target]:
    """One per bucket with an unsettled answer: the official one when there is one (the
    grader's answers are what the score is made of), else the strict one."""
    odd = unsettled_rows(state.rows, cfg.usage_tolerance)
    out: list[Target] = []
    for bucket in cfg.buckets:
        mine = [r for r in odd if r.bucket == bucket.name]
        mine.sort(key=lambda r: r.mode != "official")
        if mine:
            out.append(Target(bucket, mine[0]))
    return out


def probe_enabled(cfg: LatencyConfig) -> bool:
    return metrics_enabled(cfg.usage_probe, cfg.mode)


def usage_findings(
    cfg: LatencyConfig, rows: Sequence[RequestRow], checks: Sequence[UsageCheck]
) -> tuple[list[RiskFlag], list[str]]:
    """(flags, notes): a flag per probe whose token ids disagree with usage; one note when
    answers stay unsettled (no probe, or one that could not tell)."""
    flags = probe_flags(checks, "latency")
    settled = {c.name for c in checks if c.result in ("agrees", "disagrees")}
    open_rows = [r for r in unsettled_rows(rows, cfg.usage_tolerance) if r.bucket not in settled]
    if not open_rows:
        return flags, []
    how = how_to_settle(
        checks,
        probe_enabled(cfg),
        "`--usage-probe on` settles it after the buckets with the server's token ids "
        "(a harness extra, outside the grader's requests).",
    )
    groups: dict[str, list[RequestRow]] = {}
    for r in open_rows:
        groups.setdefault(f"{r.mode} {r.bucket}", []).append(r)
    return flags, [unsettled_line(list(groups.items()), cfg.usage_tolerance, how)]
