"""``cached_answers`` (MLPerf TEST04, with mlcommons/endpoints#399's hole closed: the
controls are interleaved with the repeated prompt, never sent after it): the grader's
repeated filler costs per output token what the near-filler control (one word of the last
sentence swapped: the same prefix-cache hits, the same speculation) costs. A prefix cache
skips prefill only, so the two agree; an answer cache skips decode too, so the repeated
prompt comes back below ``decode_share`` of the control's time per token, in the timed
rounds and in a second, independent set of rounds (or in the timed rounds alone with one
answer replayed at a temperature above 0: harness/audit/timed/replay.py). Decisive as
well: the server's own request counter counting fewer requests than were answered (a
failed request is never compared: harness/audit/answered.py). "0 prefix-cache hits" alone
is never a finding.

No I/O, no clocks: tested with literal numbers (tests/unit/test_audit_analysis.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.audit.report import Phase, Sample
from harness.audit.timed.pairs import (
    per_token,
    ratio,
)
from harness.audit.timed.replay import replays
from harness.audit.workload import nouns
from harness.engines.read import saved, saved_unit
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.robust import (
    median,
)

# a counter may lag the last answer by a request (engines record stats after replying)
COUNTER_SLACK = 1


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
