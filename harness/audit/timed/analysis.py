"""The audit's rules as pure functions over its samples (docs/audit.md).

- **cached answers** (MLPerf TEST04, with mlcommons/endpoints#399's hole closed: the
  controls are interleaved with the repeated prompt, never sent after it): the grader's
  repeated filler costs per output token what the near-filler control (one word of the
  last sentence swapped: the same prefix-cache hits, the same speculation) costs. A
  prefix cache skips prefill only, so the two agree; an answer cache skips decode too,
  so the repeated prompt comes back below ``decode_share`` of the control's time per
  token, in the timed rounds and in a second, independent set of rounds (or in the timed
  rounds alone with one answer replayed at a temperature above 0: harness/audit/timed/replay.py).
  Decisive as well: the server's own request counter counting fewer requests than were
  answered (a failed request is never compared: harness/audit/answered.py). "0
  prefix-cache hits" alone is never a finding.
- **benchmark detection**: the repeated filler's time per output token below
  ``split_ratio`` of the near-filler control's (:func:`ratio`, the median of every pair's
  ratio, pairs of comparable answer lengths), in the timed rounds AND in a second, independent set of rounds (the
  confirmation keeps one-off noise from failing).
- **physically possible**: the repeated prompt's median below a floor no honest
  submission can reach: ``ceil(output tokens / tokens_per_step)`` decode steps, each
  reading ``min_weight_bytes`` at ``gpus`` × ``gpu_bandwidth_bytes_s`` (the profile's);
  or its decode alone below the floor of its tokens after the first: the median minus the
  fastest of ``ONE_TOKEN_REQUESTS`` requests of the same prompt for one token (the same
  body but ``max_tokens``, not streamed: what the answer costs without decode), so a
  server that answers at once after a long TTFT fails too.

No I/O, no clocks: tested with literal numbers (tests/unit/test_audit_analysis.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from harness.audit.report import Phase, Role, Sample
from harness.audit.timed.replay import replays
from harness.audit.workload import nouns
from harness.engines.read import saved, saved_unit
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.robust import (
    LENGTH_MATCH,
    NOISE_LIMIT_REQUEST,
    hodges_lehmann_ratio,
    mad_sigma,
    median,
)

# a counter may lag the last answer by a request (engines record stats after replying)
COUNTER_SLACK = 1


def per_token(samples: Sequence[Sample], role: Role, phases: Sequence[Phase]) -> list[float]:
    return [
        t
        for s in samples
        if s.role == role and s.phase in phases and (t := s.ms_per_token) is not None
    ]


# a control whose answer is longer or shorter than LENGTH_MATCH (harness/stats/robust.py) of
# the repeated prompt's spreads its fixed cost (TTFT) over another number of tokens: not
# compared


def _close(a: Sample, b: Sample) -> bool:
    n = a.output_tokens or 0
    return abs((b.output_tokens or 0) - n) <= LENGTH_MATCH * n


def ratio(
    samples: Sequence[Sample],
    phases: Sequence[Phase],
    *,
    any_length: bool = False,
    min_controls: int = 1,
) -> float | None:
    """The repeated prompt's ms per output token over the near control's, by the median of
    every pair's ratio (``hodges_lehmann_ratio``, harness/stats/robust.py), a pair only where the control's answer is about
    as long as the repeated prompt's (a fixed cost spread over another number of tokens is
    not compared; at temperature 0 the repeated answers are one length, at 1.0 each pair is
    matched on its own); ``any_length``: every pair. None when fewer than ``min_controls``
    controls are in a pair (the profile's: a few controls would carry the whole median)."""
    rep = [s for s in samples if s.role == "repeated" and s.phase in phases and s.ok]
    near = [s for s in samples if s.role == "near_filler" and s.phase in phases and s.ok]
    if any_length:
        controls = [t for s in near if (t := s.ms_per_token) is not None]
        if len(controls) < min_controls:
            return None
        return hodges_lehmann_ratio([t for s in rep if (t := s.ms_per_token) is not None], controls)
    pairs = [
        (a.e2e_ms / max(1, a.output_tokens or 0) / (b.e2e_ms / max(1, b.output_tokens or 0)), i)
        for a in rep
        for i, b in enumerate(near)
        if a.e2e_ms is not None and b.e2e_ms and _close(a, b)
    ]
    if not pairs or len({i for _, i in pairs}) < min_controls:
        return None
    return statistics.median(r for r, _ in pairs)


def counter_deficit(counters: dict[str, float], answered: int) -> int | None:
    """Requests answered that the server's own counter did not count (None: no counter).
    Only answered requests are compared (harness/audit/answered.py): a failed one may
    never have reached the engine, and is never evidence of a cache."""
    counted = saved(counters, "requests")
    return None if counted is None else answered - round(counted)


def cached_answers(
    buckets: Mapping[str, Sequence[Sample]],
    counters: dict[str, float],
    answered: int,
    spec: AuditSpec,
    counters_note: str | None = None,
    temperature: float = 0.0,
    failed: str | None = None,
) -> RuleVerdict:
    """``answered``: the audit's requests that came back answered (the counter's measure);
    ``failed``: the others, in one line (harness/audit/answered.py: ``failures``)."""
    title = "no cached answers: the repeated prompt pays its decode"
    w = nouns(buckets)
    evidence: dict[str, object] = {"requests_answered": answered}
    if failed:
        evidence["requests_failed"] = failed
    hits, queries = saved(counters, "prefix_hits"), saved(counters, "prefix_lookups")
    unit = saved_unit(counters, "prefix_hits")
    if hits is not None and queries and unit == "tokens":
        evidence["prefix_cache_hit_tokens"] = f"{hits:.0f} of {queries:.0f}"
    elif hits is not None and queries:  # mistral.rs counts sequences: never told as tokens
        evidence["prefix_cache_hits"] = f"{hits:.0f} of {queries:.0f} {unit}"
    deficit = counter_deficit(counters, answered)
    if deficit is not None:
        evidence["requests_counted"] = answered - deficit
    elif counters_note:
        evidence["counters"] = counters_note
    skipped: list[str] = []
    sampled: list[bool] = []  # per bucket: every answer its own text (temperature > 0)
    measured = 0
    for name, samples in buckets.items():
        seen = replays(samples)
        if seen is not None:
            evidence[f"{name}_answers"] = seen.line(temperature)
            sampled.append(seen.sampled)
        phases: tuple[Phase, ...] = ("timed", "confirm")
        rep = median(per_token(samples, "repeated", phases))
        near = median(per_token(samples, "near_filler", phases))
        head = median(per_token(samples, "unique_head", phases))
        if rep is None or near is None:
            continue
        measured += 1
        least = spec.min_controls
        timed = ratio(samples, ("timed",), min_controls=least)
        confirm = ratio(samples, ("confirm",), min_controls=least)
        evidence[f"{name}_ms_per_token"] = {
            "repeated": round(rep, 3),
            "near_filler": round(near, 3),
            "unique_head": None if head is None else round(head, 3),
        }
        # decode skipped in the timed rounds AND in the second, independent set
        if timed is not None and confirm is not None and max(timed, confirm) < spec.decode_share:
            skipped.append(
                f"{name}: the repeated prompt took {rep:.2f} ms per output token, "
                f"{timed:.0%} then {confirm:.0%} of the {w.near} control's"
                + (f" ({seen.line(temperature)})" if seen is not None and seen.replayed else "")
            )
        # or in the timed rounds with one answer replayed at a temperature above 0: the
        # texts are the second, independent witness (harness/audit/timed/replay.py)
        elif (
            seen is not None
            and seen.replayed
            and (
                (any_timed := ratio(samples, ("timed",), any_length=True)) is not None
                and any_timed < spec.decode_share
            )
        ):
            skipped.append(
                f"{name}: {seen.line(temperature)}, and {rep:.2f} ms per output token, "
                f"{any_timed:.0%} of the near control's"
            )
    if deficit is not None and deficit > COUNTER_SLACK:
        return RuleVerdict(
            rule="cached_answers",
            title=title,
            result=RuleResult.FAIL,
            why=f"response cache: the server's own counter counts {answered - deficit} of the "
            f"{answered} requests answered; {deficit} answers never reached the engine"
            + (f" (failed requests, not compared: {failed})" if failed else ""),
            evidence=evidence,
        )
    if skipped:
        return RuleVerdict(
            rule="cached_answers",
            title=title,
            result=RuleResult.FAIL,
            why="response cache: decode skipped (a prefix cache saves prefill only): "
            + "; ".join(skipped),
            evidence=evidence,
        )
    if not measured:
        return RuleVerdict(
            rule="cached_answers",
            title=title,
            result=RuleResult.INCONCLUSIVE,
            why="no successful repeated and control requests to compare"
            + (f": {failed}" if failed else ""),
            evidence=evidence,
        )
    why = "the repeated prompt pays its decode like the near-filler control"
    if sampled and all(sampled):
        why = (
            f"every answer to the repeated prompt at temperature {temperature:g} differs: "
            "generated each time, and it pays its decode like the near control"
        )
    if hits:
        why += " (a prefix cache: legal)"
    if failed:
        why += f"; judged on the answered requests ({failed} failed)"
    return RuleVerdict(
        rule="cached_answers", title=title, result=RuleResult.PASS, why=why, evidence=evidence
    )


# a look whose identical filler requests vary more than this (robust σ of their time per
# token) cannot tell a 10 % split from noise (a split deeper than twice that spread it can): a loaded 2-core CPU machine shares its cores,
# a GPU server does not vary so (bench/audit.py: ~11 % at its 10 % jitter, ~6 % at 3 %)
NOISE_LIMIT = NOISE_LIMIT_REQUEST


def noise(samples: Sequence[Sample], phases: Sequence[Phase]) -> float | None:
    """The spread of the identical filler's time per output token in ``phases``: 1.4826 ×
    the median absolute deviation over the median (a σ that a few stalls do not move)."""
    xs = per_token(samples, "repeated", phases)
    if len(xs) < 2:
        return None
    mid, sigma = median(xs), mad_sigma(xs)
    return sigma / mid if mid is not None and sigma is not None and mid > 0 else None


def needs_confirmation(samples: Sequence[Sample], spec: AuditSpec) -> bool:
    """The timed rounds split (or look like a skipped decode): a second, independent set of
    rounds must say so too before either rule fails on timing alone (one loaded moment of
    a shared machine can make any single set of rounds look split)."""
    r = ratio(samples, ("timed",), min_controls=spec.min_controls)
    return r is not None and r < spec.split_ratio


def benchmark_detection(
    buckets: Mapping[str, Sequence[Sample]], spec: AuditSpec, failed: str | None = None
) -> RuleVerdict:
    """``failed``: the audit's failed requests in one line, named when too few were answered."""
    w = nouns(buckets)
    title = f"no benchmark detection: the grader's {w.prompt} is served like a {w.near}"
    evidence: dict[str, object] = {"split_ratio": spec.split_ratio}
    split: list[str] = []
    noisy: list[str] = []
    measured = 0
    for name, samples in buckets.items():
        timed = ratio(samples, ("timed",), min_controls=spec.min_controls)
        if timed is None:
            continue
        measured += 1
        confirm = ratio(samples, ("confirm",), min_controls=spec.min_controls)
        spread = [noise(samples, (p,)) for p in ("timed", "confirm")]
        evidence[f"{name}_ratio"] = {
            "timed": round(timed, 3),
            "confirm": None if confirm is None else round(confirm, 3),
            "filler_spread": [None if x is None else round(x, 3) for x in spread],
        }
        if timed < spec.split_ratio and confirm is not None and confirm < spec.split_ratio:
            # a look too noisy to judge its split, unless the split is deeper than twice
            # the filler's own spread (a cheat's 33 % split stands out of 12 % noise)
            unsure = [
                x for r, x in zip((timed, confirm), spread, strict=True)
                if x is not None and x > NOISE_LIMIT and r >= 1 - 2 * x
            ]  # fmt: skip
            if unsure:
                noisy.append(
                    f"{name}: the {w.prompt} cost {timed:.0%} then {confirm:.0%} of the "
                    f"control, but the identical {w.prompt}'s own time per token varies by "
                    f"{max(unsure):.0%}"
                )
                continue
            split.append(
                f"{name}: the {w.prompt} costs {timed:.0%} then {confirm:.0%} of the "
                f"{w.near} control per output token"
            )
    if split:
        return RuleVerdict(
            rule="benchmark_detection",
            title=title,
            result=RuleResult.FAIL,
            why=f"the grader's {w.prompt} is served faster than {w.other}: " + "; ".join(split),
            evidence=evidence,
        )
    if noisy:
        return RuleVerdict(
            rule="benchmark_detection",
            title=title,
            result=RuleResult.INCONCLUSIVE,
            why=f"too noisy to judge (over {NOISE_LIMIT:.0%}): "
            + "; ".join(noisy)
            + "; audit again on an idle machine",
            evidence=evidence,
        )
    if not measured:
        answered = any(s.ok and s.role == "near_filler" for v in buckets.values() for s in v)
        return RuleVerdict(
            rule="benchmark_detection",
            title=title,
            result=RuleResult.INCONCLUSIVE,
            why=f"{'too many of ' if spec.min_controls > 1 else ''}the {w.near} controls' "
            f"answers differ in length from the {w.prompt}'s by more than {LENGTH_MATCH:.0%}: "
            "their time per token is not comparable"
            if answered
            else f"no successful repeated and {w.near} requests to compare"
            + (f": {failed}" if failed else ""),
            by_design=answered,
            evidence=evidence,
        )
    return RuleVerdict(
        rule="benchmark_detection",
        title=title,
        result=RuleResult.PASS,
        why=f"the {w.prompt} and the {w.near} control cost the same per output token "
        f"(within {(1 - spec.split_ratio) * 100:.3g} %)",
        evidence=evidence,
    )


def floor_ms(output_tokens: int, spec: AuditSpec) -> float:
    """The least time ``output_tokens`` can take on the profile's GPUs (a true lower bound):
    each step's weights read at once by ``gpus`` GPUs in parallel."""
    steps = math.ceil(max(1, output_tokens) / spec.tokens_per_step)
    return steps * spec.min_weight_bytes / (spec.gpus * spec.gpu_bandwidth_bytes_s) * 1000


# requests of the repeated prompt for one token, after the rounds: the fastest is what its
# answer costs without decode (the fastest: a stalled one can only make the decode look longer)
ONE_TOKEN_REQUESTS = 3


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
