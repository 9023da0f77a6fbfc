"""The rule ``complete_outputs`` (MLPerf TEST09 analogue) as a pure function over its
checks (docs/audit.md).

An answer to the grader's request that ends before ``max_tokens`` must have been ended by
the model, not cut by the server. First look: the same prompt continued with that answer,
at temperature 0. vLLM counts the EOS that comes next (harness/usage.py), so a finished
answer's continuation comes back ``stop`` with 0 or 1 tokens; the join is re-tokenised
(prompt + answer text is not always the token sequence the model saw), so
``SEAM_TOKENS`` more are allowed: finished, the rule passes.

A continuation that runs on is no proof of a cut: the EOS may be a near tie (a repetitive
answer), and prompt + answer is computed in one prefill, not one decode step at a time
(other kernels, other rounding: llama.cpp's SmolLM2 ran on 10 tokens, honestly). What a
near tie, a seam or prefill numerics cannot do is make the end move with where the
request starts. So the prompt is continued from inside the answer too (after a quarter, a
half and three quarters of it, and of the run-on): a model writes the rest of its answer and ends in
its text (where the answer ended, or where the run-on did); a server that cuts at a count
ends each continuation that count after its start (``--stop-early-at``: the end moves by
the start), and one that cuts in proportion to the answer's natural length ends it a fixed
share of the way (the end moves by a share of the start). A cut applies its law to every
continuation, so FAIL when every probe (of both laws' starts) ends where one law puts it
(within the seam, after one offset common to all: the measured answer's own seam; or at
the run-on's end where the law puts it there or beyond), one of its own probes off both of
the text's ends, and no such offset puts every probe in the text (the honest explanation);
PASS when every probe ends in the text; otherwise inconclusive, with why.

Answers that ran to ``max_tokens`` are no evidence: when no audited answer ended early,
the rule is inconclusive by design (nothing was cut, or nothing can show it).

No I/O: tested with literal values (tests/unit/test_audit_complete.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.audit.continuations.record import Continuation
from harness.audit.rule import AuditRule, Measured
from harness.audit_catalogue import COMPLETE_OUTPUTS
from harness.rule_report import RuleResult, RuleVerdict
from harness.usage import EOS_TOKENS

RULE = COMPLETE_OUTPUTS.name
TITLE = "complete outputs: an answer that ends early was ended by the model"
# tokens a finished answer's continuation may still bring: a different split at the join
# of prompt and answer, or special tokens the detokeniser left out of the answer's text
# (the CPU reference server's continuation of its short answer brings the EOS alone); and
# how far off a law's place (or the text's end) an end may sit, for the same reasons
SEAM_TOKENS = 2
# how far the measured answer's end may sit off its true end, moving every probe alike
# (its own seam, and a little more for a cut in proportion's fitted share)
OFFSET_TOKENS = 1.5 * SEAM_TOKENS
# probes of a law that must end off both of the text's ends: a near tie that runs on
# stops at the run-on's own near ties, and one of those between the answer's end and the
# run-on's may sit where a law puts a probe (bench/audit_complete.py: one gave 0.1–1 %
# false alarms, two ≤ 0.02 %)
OFF_TEXT = 1
# where the probes start, as shares of the answer and of the run-on
SHARES = (1 / 4, 1 / 2, 3 / 4)


def finished(c: Continuation) -> bool | None:
    """True: the continuation ended at once (the answer was complete); False: it went on;
    None: nothing to judge (an error, or no early end)."""
    if not c.ended_early or c.continued_tokens is None:
        return None
    # "stop", or no finish reason at all (a server that reports none is not failed for it)
    ended = c.continued_finish != "length"
    return ended and c.continued_tokens <= EOS_TOKENS + SEAM_TOKENS


@dataclass(frozen=True)
class Law:
    """Where a cut puts a probe's end: ``slope`` × its start past the answer's end (1: a
    cut at a fixed count; the run-on's share of the answer: a cut in proportion), for
    probes started at ``starts``."""

    name: str
    slope: float
    starts: tuple[int, ...]


def laws(answer: int, run_on: int) -> list[Law]:
    """The two cuts' laws for an answer of ``answer`` tokens whose continuation ran on
    ``run_on``: their probes start at a quarter, a half and three quarters of the run-on
    (at most the answer) and of the answer."""
    span = min(run_on, answer)
    fixed = tuple(round(f * span) for f in SHARES)
    share = tuple(round(f * answer) for f in SHARES)
    return [
        Law("at a fixed count", 1.0, fixed),
        Law("in proportion", min(1.0, run_on / answer), share),
    ]


def probe_starts(c: Continuation) -> list[int]:
    """Where the probes of a continuation that ran on start (inside the answer)."""
    if c.start is None or c.end is None:
        return []
    ks = {k for law in laws(c.start, c.end - c.start) for k in law.starts}
    return sorted(k for k in ks if 0 < k < c.start)


def _past(p: Continuation, answer: int) -> int | None:
    return None if p.end is None else p.end - answer


def follows(p: Continuation, answer: int, slope: float, offset: float = 0.0) -> bool:
    """The probe ended where a cut of ``slope`` puts it (within the seam, past the
    answer's end as measured: ``offset``); one that ran to its ``max_tokens`` did not end
    (a run-on that never stops, a loop: no cut's law)."""
    d = _past(p, answer)
    if d is None or p.start is None or p.continued_finish == "length":
        return False
    return abs(d - offset - slope * p.start) <= SEAM_TOKENS


def consistent(p: Continuation, answer: int, run_on: int, slope: float, offset: float) -> bool:
    """The probe ended where the cut's law puts it, or where the run-on ended when the law
    puts it there or beyond (the model ended before the cut came)."""
    if follows(p, answer, slope, offset):
        return True
    d = _past(p, answer)
    reach = slope * (p.start or 0) + offset
    return d is not None and abs(d - run_on) <= SEAM_TOKENS and reach >= run_on - SEAM_TOKENS


def fitted(probes: Sequence[Continuation], answer: int) -> tuple[float, float]:
    """(slope, offset): the share of its start by which the probes' ends moved past the
    answer's end, and where the line meets the answer's end as measured (a least-squares
    line: a cut in proportion's own share, which the run-on's measured length only
    estimates; the offset is the measured answer's own seam, common to every probe)."""
    pairs = [(p.start or 0, d) for p in probes if (d := _past(p, answer)) is not None]
    if len(pairs) < 2:
        return 0.0, 0.0
    mk = sum(k for k, _ in pairs) / len(pairs)
    md = sum(d for _, d in pairs) / len(pairs)
    den = sum((k - mk) ** 2 for k, _ in pairs)
    slope = sum((k - mk) * (d - md) for k, d in pairs) / den if den else 0.0
    return slope, md - slope * mk


def offset_at(probes: Sequence[Continuation], answer: int, slope: float) -> float:
    """Where a law of ``slope`` meets the answer's end, as its probes put it: the middle of
    their residuals' range (the measured answer's own seam, common to every probe; the
    place from which no probe is further than it must be)."""
    r = [d - slope * (p.start or 0) for p in probes if (d := _past(p, answer)) is not None]
    return (min(r) + max(r)) / 2 if r else 0.0


def moved(probes: Sequence[Continuation], slope: float) -> bool:
    """The law moves the ends across its probes by more than two seams: more than the
    re-tokenised counts of an end that stays in the text can move them."""
    ks = [p.start or 0 for p in probes]
    return bool(ks) and slope * (max(ks) - min(ks)) > 1.5 * SEAM_TOKENS


def off_text(p: Continuation, answer: int, run_on: int) -> bool:
    """The probe ended off both of the text's ends (beyond the seam)."""
    d = _past(p, answer)
    return d is not None and SEAM_TOKENS < d < run_on - SEAM_TOKENS


def in_text(p: Continuation, answer: int, run_on: int) -> bool:
    """The probe ended where the answer ended, or where its continuation ran on to."""
    d = _past(p, answer)
    return d is not None and (abs(d) <= SEAM_TOKENS or abs(d - run_on) <= SEAM_TOKENS)


def in_text_anyhow(probes: Sequence[Continuation], answer: int, run_on: int) -> bool:
    """Some offset within the one a law may have (``OFFSET_TOKENS``: the measured answer's
    own seam, common to every probe) puts every probe where the answer ended or where its
    run-on ended, or beyond (the run-on's later ends): the honest explanation, which a
    cut's law must leave out to be the verdict (an integer offset will do when any does:
    the counts are integers)."""
    ds = [d for p in probes if (d := _past(p, answer)) is not None]
    reach = int(OFFSET_TOKENS)
    return any(
        all(abs(d - o) <= SEAM_TOKENS or d - o >= run_on - SEAM_TOKENS for d in ds)
        for o in range(-reach, reach + 1)
    )


def telling(p: Continuation, run_on: int, slopes: Sequence[float]) -> bool:
    """A cut would have put this probe's end off both of the text's ends: where it ends
    tells a model from a cut."""
    k = p.start or 0
    return any(SEAM_TOKENS < s * k < run_on - SEAM_TOKENS for s in slopes)


@dataclass(frozen=True)
class Finding:
    kind: str  # finished | in_text | cut | unsure | broken | none
    line: str = ""


def judge_bucket(mine: Sequence[Continuation]) -> Finding:
    """One bucket's checks: the answer continued after its end, then the probes."""
    whole = [c for c in mine if not c.inside]
    if not whole:
        return Finding("none")
    c = whole[0]
    if any(x.error for x in mine):
        return Finding("broken", next(x.error for x in mine if x.error) or "")
    looks = finished(c)
    if looks is None:
        return Finding("none")
    if looks:
        return Finding("finished")
    answer, run_on = c.start, (c.end or 0) - (c.start or 0)
    probes = [p for p in mine if p.inside]
    if answer is None or c.end is None or not probes:
        return Finding("unsure", f"{c.bucket}: not probed")
    head = (
        f"{c.bucket}: the answer ended at {c.answer_tokens} of {c.max_tokens} tokens "
        f"({c.answer_finish!r}); continued after it, the prompt ran on {run_on} tokens "
        f"({c.continued_finish!r})"
    )
    ends = ", ".join(f"after {p.start}: {_past(p, answer):+d}" for p in probes if p.end is not None)
    for law in laws(answer, run_on):
        mine_ = [p for p in probes if p.start in law.starts]
        if law.slope == 1.0:
            slope, offset = 1.0, offset_at(mine_, answer, 1.0)
        else:
            slope, offset = fitted(probes, answer)
        if (
            len(mine_) == len(set(law.starts))
            and 0 < slope <= 1
            and abs(offset) <= OFFSET_TOKENS
            and moved(mine_, slope)
            and all(consistent(p, answer, run_on, slope, offset) for p in probes)
            and sum(off_text(p, answer, run_on) for p in mine_) >= OFF_TEXT
            and not in_text_anyhow(probes, answer, run_on)
        ):
            return Finding(
                "cut",
                f"{head}; continued from inside it, each end moved with the start "
                f"({ends} tokens past the answer's end): a cut {law.name}",
            )
    slopes = [law.slope for law in laws(answer, run_on)]
    if all(in_text(p, answer, run_on) for p in probes) and any(
        telling(p, run_on, slopes) for p in probes
    ):
        return Finding(
            "in_text",
            f"{head}, yet continued from inside it, it ends where the answer ended or "
            f"where that run ended ({ends} tokens past the answer's end): the model's own "
            "end, a near tie",
        )
    return Finding(
        "unsure",
        f"{head}; continued from inside it, the ends ({ends} tokens past the answer's end) "
        "neither stay in the text nor move with the start as a cut's do: a near-tie end of "
        "sequence cannot be told from a cut here",
    )


def _evidence(c: Continuation) -> dict[str, object]:
    row: dict[str, object] = {
        "answer": f"{c.answer_tokens} of {c.max_tokens} tokens, {c.answer_finish}",
        "continued": f"{c.continued_tokens} tokens, {c.continued_finish}"
        if c.continued_tokens is not None
        else None,
    }
    if c.start is not None:
        row["start"], row["end"] = c.start, c.end
    if c.error:
        row["error"] = c.error
    return row


def complete_outputs(checks: Sequence[Continuation]) -> RuleVerdict:
    """The verdict over every bucket's checks: FAIL when a bucket's probes end where a cut
    puts them; PASS when an early-ended answer was finished, or ends in its text."""
    evidence: dict[str, object] = {"seam_tokens": SEAM_TOKENS}
    found: dict[str, list[str]] = {}
    for bucket in dict.fromkeys(c.bucket for c in checks):
        mine = [c for c in checks if c.bucket == bucket]
        evidence[bucket] = [_evidence(c) for c in mine]
        f = judge_bucket(mine)
        found.setdefault(f.kind, []).append(f.line)

    def verdict(result: RuleResult, why: str, by_design: bool = False) -> RuleVerdict:
        return RuleVerdict(rule=RULE, title=TITLE, result=result, why=why,
                           by_design=by_design, evidence=evidence)  # fmt: skip

    if "cut" in found:
        return verdict(
            RuleResult.FAIL, "the server cut the answer, the model had not ended it: "
            + "; ".join(found["cut"]),
        )  # fmt: skip
    if "unsure" in found:
        return verdict(RuleResult.INCONCLUSIVE, "; ".join(found["unsure"]))
    if "in_text" in found:
        return verdict(
            RuleResult.PASS, "the answer that ended before max_tokens ended where the model "
            "ends it: " + "; ".join(found["in_text"]),
        )  # fmt: skip
    if "finished" in found:
        return verdict(
            RuleResult.PASS,
            "the answer that ended before max_tokens was finished: continued with it, "
            "the prompt ends at once",
        )
    if "broken" in found:
        return verdict(
            RuleResult.INCONCLUSIVE,
            "the answer or its continuation failed: nothing to judge (" + found["broken"][0] + ")",
        )
    return verdict(
        RuleResult.INCONCLUSIVE,
        "every audited answer ran to max_tokens: no answer ended early, nothing was cut",
        by_design=True,
    )


def _complete_outputs(m: Measured) -> RuleVerdict:
    return complete_outputs(m.continuations)


# the continuations phase: sent per bucket after its rounds (harness/audit/continuations/send.py)
COMPLETE = AuditRule(COMPLETE_OUTPUTS, _complete_outputs)
