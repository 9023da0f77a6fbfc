"""``physically_possible``: the repeated prompt's median below a floor no honest submission
can reach: ``ceil(output tokens / tokens_per_step)`` decode steps, each reading
``min_weight_bytes`` at ``gpus`` × ``gpu_bandwidth_bytes_s`` (the profile's); or its decode
alone below the floor of its tokens after the first: the median minus the fastest of
``ONE_TOKEN_REQUESTS`` requests of the same prompt for one token (the same body but
``max_tokens``, not streamed: what the answer costs without decode; spread over the timed
rounds: :func:`one_token_after`), so a server that answers at once after a long TTFT fails
too.

No I/O, no clocks: tested with literal numbers (tests/unit/test_audit_analysis.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from harness.audit.report import Sample
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict


def floor_ms(output_tokens: int, spec: AuditSpec) -> float:
    """The least time ``output_tokens`` can take on the profile's GPUs (a true lower bound):
    each step's weights read at once by ``gpus`` GPUs in parallel."""
    steps = math.ceil(max(1, output_tokens) / spec.tokens_per_step)
    return steps * spec.min_weight_bytes / (spec.gpus * spec.gpu_bandwidth_bytes_s) * 1000


# requests of the repeated prompt for one token, spread over the timed rounds: the fastest
# is what its answer costs without decode (the fastest: a stalled one can only make the
# decode look longer)
ONE_TOKEN_REQUESTS = 3


def one_token_after(rounds: int) -> list[int]:
    """The timed round after which each one-token request is sent (the k-th request's
    ``round`` is k, its own index): after the first, the middle and the last of ``rounds``
    (0, 7 and 15 of 16). Sent one after another, a single stall of a loaded machine could
    slow all three, and the fastest would then overstate what the answer costs without
    decode (its decode would look below the floor: bench/audit.py's loaded rows); spread
    over 16 rounds, 21 requests or more lie between two, and a stall must slow each alone
    (at fewer rounds they draw closer: 1 round sends all three after it)."""
    last = max(0, rounds - 1)
    return [k * last // max(1, ONE_TOKEN_REQUESTS - 1) for k in range(ONE_TOKEN_REQUESTS)]


def decode_ms(samples: Sequence[Sample], median_ms: float) -> float | None:
    """The repeated prompt's decode time: its median less the fastest answer to the same
    prompt for one token (None: no such answer)."""
    one = [s.e2e_ms for s in samples if s.role == "one_token" and s.ok and s.e2e_ms is not None]
    return median_ms - min(one) if one else None


def physically_possible(buckets: Mapping[str, Sequence[Sample]], spec: AuditSpec) -> RuleVerdict:
    title = "physically possible: no median below the GPU's floor"
    evidence: dict[str, object] = {
        "floor": f"ceil(tokens / {spec.tokens_per_step}) steps × {spec.min_weight_bytes:.3g} B "
        f"/ {spec.gpu_bandwidth_bytes_s:.3g} B/s"
        + (f" / {spec.gpus} GPUs" if spec.gpus > 1 else "")
    }
    below: list[str] = []
    measured = 0
    for name, samples in buckets.items():
        rep = [s for s in samples if s.role == "repeated" and s.phase != "warmup" and s.ok]
        if not rep:
            continue
        measured += 1
        mid_ms = statistics.median(s.e2e_ms or 0.0 for s in rep)
        tokens = int(statistics.median(s.output_tokens or 0 for s in rep))
        floor = floor_ms(tokens, spec)
        decode = decode_ms(samples, mid_ms)
        after_first = floor_ms(tokens - 1, spec) if tokens > 1 else 0.0
        evidence[name] = {
            "median_ms": round(mid_ms, 3),
            "output_tokens": tokens,
            "floor_ms": round(floor, 3),
            "decode_ms": None if decode is None else round(decode, 3),
            "decode_floor_ms": round(after_first, 3),
        }
        if mid_ms < floor:
            below.append(
                f"{name}: median {mid_ms:.1f} ms for {tokens} tokens, below the floor "
                f"{floor:.1f} ms"
            )
        elif decode is not None and tokens > 1 and decode < after_first:
            below.append(
                f"{name}: {tokens} tokens took {decode:.1f} ms more than one token (median "
                f"{mid_ms:.1f} ms), below the floor {after_first:.1f} ms of the "
                f"{tokens - 1} after the first: no decode"
            )
    if below:
        return RuleVerdict(
            rule="physically_possible",
            title=title,
            result=RuleResult.FAIL,
            why="faster than any honest server on the profile's GPU: " + "; ".join(below),
            evidence=evidence,
        )
    if not measured:
        return RuleVerdict(
            rule="physically_possible",
            title=title,
            result=RuleResult.INCONCLUSIVE,
            why="no successful repeated request to time",
            evidence=evidence,
        )
    return RuleVerdict(
        rule="physically_possible",
        title=title,
        result=RuleResult.PASS,
        why="every audited median, and its decode after the first token, is above the GPU's floor",
        evidence=evidence,
    )
