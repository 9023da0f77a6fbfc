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
  ratio, pairs of comparable answer lengths, each role's slow outliers left out: a loaded
  machine's stalls), in the timed rounds AND in a second, independent set of rounds (the
  confirmation keeps one-off noise from failing), each look's split deeper than its noise
  (:func:`noise`, :func:`split_error`); when both split but one only narrowly
  (:func:`needs_third_look`), in a third, independent set of rounds too.
- **physically possible**: the repeated prompt's median below a floor no honest
  submission can reach: ``ceil(output tokens / tokens_per_step)`` decode steps, each
  reading ``min_weight_bytes`` at ``gpus`` × ``gpu_bandwidth_bytes_s`` (the profile's);
  or its decode alone below the floor of its tokens after the first: the median minus the
  fastest of ``ONE_TOKEN_REQUESTS`` requests of the same prompt for one token (the same
  body but ``max_tokens``, not streamed: what the answer costs without decode; spread over
  the timed rounds: :func:`one_token_after`), so a
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


# A loaded machine's stall (another process on the core) slows a request, and often the next
# few, by a heavy-tailed factor; it never speeds one up. A few stalls landing on the controls
# of both looks more than on the filler could fake a split, so the pairs leave out each
# role's slow outliers: a request whose log time per token lies more than SLOW_SIGMAS σ (the
# look's robust σ: the MAD of the filler's and its matched controls' log deviations from
# their own medians) above its role's median, and never one within SLOW_FLOOR (~10 %) of it.
# One-sided, so a cheat cannot hide behind it: filler detection makes every filler request
# faster, never a few slower, and what it drops (slow requests) only ever moves a ratio
# toward 1 by the stalls it removes. bench/audit.py's loaded rows chose 3 σ and the floor.
SLOW_SIGMAS = 3.0
SLOW_FLOOR = 0.1


def _fast(xs: list[tuple[Sample, float]], sigma: float) -> list[Sample]:
    mid = median([x for _, x in xs])
    if mid is None:
        return []
    return [s for s, x in xs if x - mid <= max(SLOW_SIGMAS * sigma, SLOW_FLOOR)]


def compared(samples: Sequence[Sample], phases: Sequence[Phase]) -> tuple[
    list[Sample], list[Sample], float | None
]:  # fmt: skip
    """The repeated prompt's and its near controls' answered requests in ``phases`` that
    the split compares (a control only where its answer is as long as some repeated one's:
    :func:`_close`), slow outliers left out (``SLOW_SIGMAS``), and the look's robust σ of
    log time per token (None under 2 of either role)."""
    rep = [s for s in samples if s.role == "repeated" and s.phase in phases and s.ok]
    near = [s for s in samples if s.role == "near_filler" and s.phase in phases and s.ok]
    near = [b for b in near if any(_close(a, b) for a in rep)]
    logs = [
        [(s, math.log(t)) for s in group if (t := s.ms_per_token) is not None and t > 0]
        for group in (rep, near)
    ]
    if min(len(g) for g in logs) < 2:
        return rep, near, None
    deviations = [
        x - mid for g in logs if (mid := median([x for _, x in g])) is not None for _, x in g
    ]
    sigma = mad_sigma(deviations)
    if sigma is None:
        return rep, near, None
    return _fast(logs[0], sigma), _fast(logs[1], sigma), sigma


def ratio(
    samples: Sequence[Sample],
    phases: Sequence[Phase],
    *,
    any_length: bool = False,
    min_controls: int = 1,
) -> float | None:
    """The repeated prompt's ms per output token over the near control's, by the median of
    every pair's ratio (``hodges_lehmann_ratio``, harness/stats/robust.py), a pair only where
    the control's answer is about as long as the repeated prompt's (a fixed cost spread over
    another number of tokens is not compared; at temperature 0 the repeated answers are one
    length, at 1.0 each pair is matched on its own), each role's slow outliers (stalls) left
    out (:func:`compared`); ``any_length``: every pair, none left out. None when fewer than
    ``min_controls`` controls are in a pair before the outliers are left out (the profile's:
    a few controls would carry the whole median)."""
    rep = [s for s in samples if s.role == "repeated" and s.phase in phases and s.ok]
    near = [s for s in samples if s.role == "near_filler" and s.phase in phases and s.ok]
    if any_length:
        controls = [t for s in near if (t := s.ms_per_token) is not None]
        if len(controls) < min_controls:
            return None
        return hodges_lehmann_ratio([t for s in rep if (t := s.ms_per_token) is not None], controls)
    paired = {i for a in rep for i, b in enumerate(near) if b.e2e_ms and _close(a, b)}
    if len(paired) < max(1, min_controls):
        return None
    rep, near, _ = compared(samples, phases)
    pairs = [
        a.e2e_ms / max(1, a.output_tokens or 0) / (b.e2e_ms / max(1, b.output_tokens or 0))
        for a in rep
        for b in near
        if a.e2e_ms is not None and b.e2e_ms and _close(a, b)
    ]
    return statistics.median(pairs) if pairs else None


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


# a look whose requests vary more than this (robust σ of their time per token) cannot tell
# a 10 % split from noise (a split deeper than twice that spread it can): a loaded 2-core
# CPU machine shares its cores, a GPU server does not vary so (bench/audit.py: ~11 % at its
# 10 % jitter, ~6 % at 3 %)
NOISE_LIMIT = NOISE_LIMIT_REQUEST
# and whatever the spread, a look's split must lie more than SPLIT_ERRORS standard errors
# below 1 (σ √(1/m + 1/n) for m filler requests and n controls: a difference of two means,
# here of their log times per token): at 10 % jitter one look in ten splits by chance, and
# two looks split below 0.945 in ~1 % of honest audits, too often for the spread guard
# alone. It was 2.2 (bench/audit.py: honest 10 % jitter 0.18 % false FAIL → 0.11 %); since
# a marginal double split asks a third look (THIRD_LOOK_ERRORS below), which stops those
# false alarms, 1.75 keeps a floor under every look and misses fewer cheats
SPLIT_ERRORS = 1.75


def noise(samples: Sequence[Sample], phases: Sequence[Phase]) -> float | None:
    """The spread of the repeated prompt's and its matched controls' time per output token
    in ``phases``: the robust σ (1.4826 × the median absolute deviation) of their log times
    per token about each role's median, pooled (more requests: a steadier σ than the
    filler's alone, and one a cheat cannot raise by jittering its filler alone), slow
    outliers (stalls) left out as the split leaves them (:func:`compared`)."""
    rep, near, _ = compared(samples, phases)
    logs = [
        [math.log(t) for s in group if (t := s.ms_per_token) is not None and t > 0]
        for group in (rep, near)
    ]
    if len(logs[0]) < 2:
        return None
    return mad_sigma([x - mid for g in logs if (mid := median(g)) is not None for x in g])


def split_error(samples: Sequence[Sample], phases: Sequence[Phase]) -> float | None:
    """The standard error of a look's log split: :func:`noise` × √(1/m + 1/n) for the m
    filler requests and n controls it compares (None: not measured)."""
    rep, near, _ = compared(samples, phases)
    x = noise(samples, phases)
    if x is None or not rep or not near:
        return None
    return x * math.sqrt(1 / len(rep) + 1 / len(near))


# a double split one of whose looks lies less than THIRD_LOOK_ERRORS standard errors below 1
# (:func:`split_error`) is marginal: at 10 % per-request jitter two looks of 16 rounds both
# split by chance in ~1 % of honest audits, and a guard deep enough to stop them (SPLIT_ERRORS
# over 2.2) missed over 5 % of 10 % cheats. So a third, independent set of rounds is sent,
# only then (more evidence only where the evidence is marginal), and the rule fails only when
# it splits too: bench/audit.py, honest 10 % jitter 0.110 % false FAIL → ~0.03 %, an honest
# server pays it in ~2 % of audits there and ~0 % up to 5 % jitter; a cheat's 10 % split on
# a GPU's few % of noise is ~4 standard errors deep, and the third look costs it ~1 %
THIRD_LOOK_ERRORS = 3.0


def split_depth(
    samples: Sequence[Sample], phases: Sequence[Phase], spec: AuditSpec
) -> float | None:
    """How many standard errors (:func:`split_error`) a look's split lies below 1 (None: not
    measured, or no spread at all: no noise to mistake for a split)."""
    r = ratio(samples, phases, min_controls=spec.min_controls)
    e = split_error(samples, phases)
    if r is None or not e:
        return None
    return -math.log(r) / e


def needs_third_look(samples: Sequence[Sample], spec: AuditSpec) -> bool:
    """The timed rounds and their confirmation both split, one of them marginally (less than
    ``THIRD_LOOK_ERRORS`` standard errors deep): a third, independent set of rounds decides."""
    looks: list[tuple[Phase, ...]] = [("timed",), ("confirm",)]
    rs = [ratio(samples, p, min_controls=spec.min_controls) for p in looks]
    if any(r is None or r >= spec.split_ratio for r in rs):
        return False
    deep = [split_depth(samples, p, spec) for p in looks]
    return any(d is not None and d < THIRD_LOOK_ERRORS for d in deep)


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
        # both split, one narrowly: the third look decided (:func:`needs_third_look`)
        third = ratio(samples, ("third",), min_controls=spec.min_controls)
        looks: list[tuple[Phase, ...]] = [("timed",), ("confirm",)]
        if third is not None:
            looks.append(("third",))
        spread = [noise(samples, p) for p in looks]
        evidence[f"{name}_ratio"] = {
            "timed": round(timed, 3),
            "confirm": None if confirm is None else round(confirm, 3),
            **({} if third is None else {"third": round(third, 3)}),
            "filler_spread": [None if x is None else round(x, 3) for x in spread],
        }
        if third is not None and third >= spec.split_ratio:
            continue  # two narrow splits, then none: noise
        if timed < spec.split_ratio and confirm is not None and confirm < spec.split_ratio:
            # a look too noisy to judge its split: over NOISE_LIMIT, unless the split is
            # deeper than twice the spread (a cheat's 33 % split stands out of 12 % noise);
            # or a split within SPLIT_ERRORS standard errors of none
            errors = [split_error(samples, p) for p in looks]
            rs = [ratio(samples, p, min_controls=spec.min_controls) or 1.0 for p in looks]
            unsure = [
                x for r, x, e in zip(rs, spread, errors, strict=True)
                if x is not None and (
                    (x > NOISE_LIMIT and r >= 1 - 2 * x)
                    or (e is not None and math.log(r) > -SPLIT_ERRORS * e)
                )
            ]  # fmt: skip
            said = " then ".join(f"{r:.0%}" for r in rs)
            if unsure:
                noisy.append(
                    f"{name}: the {w.prompt} cost {said} of the "
                    f"control, but their own time per token varies by {max(unsure):.0%}, "
                    "too much for a look's requests to tell a split from noise"
                )
                continue
            if third is None and needs_third_look(samples, spec):  # its requests failed
                noisy.append(
                    f"{name}: the {w.prompt} cost {said} of the control, too narrowly to "
                    "judge on two looks, and the third set of rounds that decides was not "
                    "measured"
                )
                continue
            split.append(
                f"{name}: the {w.prompt} costs {said} of the {w.near} control per output token"
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
            why="too noisy to judge: " + "; ".join(noisy) + "; audit again on an idle machine",
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
