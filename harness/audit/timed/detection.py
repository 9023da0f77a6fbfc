"""``benchmark_detection``: the repeated filler's time per output token below
``split_ratio`` of the near-filler control's (harness/audit/timed/pairs.py ``ratio``: the
median of every pair's ratio, pairs of comparable answer lengths, each role's slow
outliers left out: a loaded machine's stalls), in the timed rounds AND in a second,
independent set of rounds (the confirmation keeps one-off noise from failing), each look's
split deeper than its noise (``noise``, ``split_error``); when both split but one only
narrowly (:func:`needs_third_look`), in a third, independent set of rounds too.

No I/O, no clocks: tested with literal numbers (tests/unit/test_audit_analysis.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from harness.audit.report import Phase, Sample
from harness.audit.timed.pairs import (
    NOISE_LIMIT,
    SPLIT_ERRORS,
    noise,
    ratio,
    split_error,
)
from harness.audit.workload import nouns
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.robust import (
    LENGTH_MATCH,
)

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
