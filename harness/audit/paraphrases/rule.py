"""``benchmark_detection``'s quality half as pure functions (docs/audit.md): the quality
graders' items against light paraphrases, paired per item.

Per look, each item's (original, paraphrase) pair gives two log ratios: of the time per
output token (only where the two answers' lengths match within ``LENGTH_MATCH``: another
length spreads the request's fixed cost over other tokens), and of the output length. The
look's split is the Hodges–Lehmann estimate of each (the median of the pairs' Walsh
averages: a few stalls barely move it, and it uses every pair), turned back into a ratio,
two-sided: a cheat's canned answers are faster and shorter, a bigger model's slower and of
other lengths. The half fails only when the same measure splits the same way in the first
look and again in a second, independent one; a time split no deeper than twice the pairs'
own spread, where that spread is over ``NOISE_LIMIT``, is "too noisy to judge"
(inconclusive), never a failure.

No I/O, no clocks: tests/unit/test_audit_paraphrase.py holds it with literal numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from harness.audit.paraphrases.record import Asked
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.robust import LENGTH_MATCH, NOISE_LIMIT_PAIR, hodges_lehmann_walsh, mad_sigma

# answers whose lengths differ by more than LENGTH_MATCH are not compared by time per token;
# a look whose pairs' time ratios spread more than this (robust σ of their logs) is too
# noisy to judge a split no deeper than twice the spread: a pair holds two requests' noise,
# so this is the filler half's 10 % limit on one request's (timed/pairs.py), times √2
NOISE_LIMIT = NOISE_LIMIT_PAIR
MIN_PAIRS = 2


@dataclass(frozen=True)
class Look:
    """One look's pairs, summed up: ratios are original over paraphrase."""

    pairs: int  # items whose two requests both succeeded
    time_pairs: int  # of them, those whose lengths match
    time_ratio: float | None
    length_ratio: float | None
    time_spread: float | None  # of the time pairs' log ratios

    def split(self, spec: AuditSpec) -> dict[str, float]:
        """The measures outside their bounds, with their ratios."""
        out: dict[str, float] = {}
        for name, r, bound in (
            ("time", self.time_ratio, spec.paraphrase_split),
            ("length", self.length_ratio, spec.paraphrase_length_split),
        ):
            if r is not None and (r < bound or r > 1 / bound):
                out[name] = r
        return out

    def evidence(self) -> dict[str, object]:
        def r3(x: float | None) -> float | None:
            return None if x is None else round(x, 3)

        return {
            "pairs": self.pairs,
            "time_pairs": self.time_pairs,
            "time_ratio": r3(self.time_ratio),
            "length_ratio": r3(self.length_ratio),
            "time_spread": r3(self.time_spread),
        }


def pairs(asked: Sequence[Asked], look: int) -> list[tuple[Asked, Asked]]:
    """(original, paraphrase) of each item whose two requests in ``look`` succeeded."""
    by: dict[str, dict[str, Asked]] = {}
    for a in asked:
        if a.look == look and a.ok:
            by.setdefault(a.item, {})[a.form] = a
    return [(d["original"], d["paraphrase"]) for d in by.values() if len(d) == 2]


def look_of(asked: Sequence[Asked], look: int) -> Look:
    both = pairs(asked, look)
    times: list[float] = []
    lengths: list[float] = []
    for o, p in both:
        no, np_ = max(1, o.output_tokens or 0), max(1, p.output_tokens or 0)
        lengths.append(math.log(no / np_))
        to, tp = o.ms_per_token, p.ms_per_token
        if abs(no - np_) <= LENGTH_MATCH * max(no, np_) and to and tp:
            times.append(math.log(to / tp))
    t = hodges_lehmann_walsh(times) if len(times) >= MIN_PAIRS else None
    n = hodges_lehmann_walsh(lengths) if len(lengths) >= MIN_PAIRS else None
    return Look(
        pairs=len(both),
        time_pairs=len(times),
        time_ratio=None if t is None else math.exp(t),
        length_ratio=None if n is None else math.exp(n),
        time_spread=mad_sigma(times),
    )


def needs_second_look(asked: Sequence[Asked], spec: AuditSpec) -> bool:
    """The first look splits: a second, independent look must say so too."""
    return bool(look_of(asked, 0).split(spec))


def _same_way(a: float, b: float) -> bool:
    return (a < 1) == (b < 1)


def _words(name: str, first: float, second: float) -> str:
    what = "time per output token" if name == "time" else "output length"
    return f"the grader's items get {first:.0%} then {second:.0%} of their paraphrases' {what}"


@dataclass(frozen=True)
class Half:
    """The quality half's outcome, merged into the rule's one verdict (:func:`merged`)."""

    result: RuleResult
    why: str
    evidence: dict[str, object]
    by_design: bool = False


def judge_paraphrases(asked: Sequence[Asked], spec: AuditSpec) -> Half | None:
    """The half's outcome; None when the profile asks no items."""
    if not asked:
        return None
    first, second = look_of(asked, 0), look_of(asked, 1)
    evidence: dict[str, object] = {
        "items": list(dict.fromkeys(f"{a.benchmark}/{a.item}" for a in asked)),
        "max_tokens": spec.paraphrase_max_tokens,
        "bounds": {"time": spec.paraphrase_split, "length": spec.paraphrase_length_split},
        "looks": [first.evidence()] + ([second.evidence()] if second.pairs else []),
    }
    if first.pairs < MIN_PAIRS:
        errors = sorted({a.error for a in asked if a.error})
        return Half(
            RuleResult.INCONCLUSIVE,
            "too few answered pairs to compare"
            + (f" ({'; '.join(errors)[:200]})" if errors else ""),
            evidence,
        )
    one, two = first.split(spec), second.split(spec)
    both = [k for k in one if k in two and _same_way(one[k], two[k])]
    noisy = [
        x for look in (first, second) if (x := look.time_spread) is not None and x > NOISE_LIMIT
    ]
    depth = min(abs(math.log(one.get("time", 1.0))), abs(math.log(two.get("time", 1.0))))
    if "time" in both and "length" not in both and noisy and depth <= 2 * max(noisy):
        return Half(
            RuleResult.INCONCLUSIVE,
            "too noisy to judge: "
            + _words("time", one["time"], two["time"])
            + f", but the pairs' own time ratios vary by {max(noisy):.0%}",
            evidence,
        )
    if both:
        return Half(
            RuleResult.FAIL,
            "served unlike their light paraphrases: "
            + "; ".join(_words(k, one[k], two[k]) for k in both),
            evidence,
        )
    ratio = first.time_ratio if first.time_ratio is not None else 1.0
    return Half(
        RuleResult.PASS,
        f"the quality graders' prompts cost {ratio:.0%} of their paraphrases' time per token"
        + (", not again in a second look" if one else ""),
        evidence,
    )


def _rank(result: RuleResult, by_design: bool) -> int:
    """The worse half names the rule's result: a failure, then a look too noisy or broken,
    then a pass, then nothing to compare by design."""
    if result is RuleResult.INCONCLUSIVE:
        return 0 if by_design else 2
    return 3 if result is RuleResult.FAIL else 1


def merged(filler: RuleVerdict, half: Half | None) -> RuleVerdict:
    """The rule's one verdict from its filler half and its quality half (their evidence
    side by side: the quality half's under ``quality_prompts``)."""
    if half is None:
        return filler
    if _rank(filler.result, filler.by_design) >= _rank(half.result, half.by_design):
        result, by_design = filler.result, filler.by_design
    else:
        result, by_design = half.result, half.by_design
    whys = [(filler.result, f"filler: {filler.why}"), (half.result, f"quality prompts: {half.why}")]
    if result is RuleResult.FAIL:  # only the failing halves: the cause, named
        whys = [(r, w) for r, w in whys if r is RuleResult.FAIL]
    return filler.model_copy(
        update={
            "result": result,
            "by_design": by_design,
            "why": "; ".join(w for _, w in whys),
            "evidence": {**filler.evidence, "quality_prompts": half.evidence},
        }
    )
