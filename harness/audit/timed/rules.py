"""The rounds' rules as records (harness/audit/rule.py): ``cached_answers``,
``benchmark_detection`` (whose quality half, the paraphrases phase's, is merged into its
one verdict: harness/audit/paraphrases/rule.py) and ``physically_possible``, judged by the
functions of harness/audit/timed/cached.py, detection.py and possible.py."""

from __future__ import annotations

from harness.audit.paraphrases.rule import judge_paraphrases, merged, needs_second_look
from harness.audit.rule import AuditRule, Measured
from harness.audit.timed.cached import cached_answers
from harness.audit.timed.detection import benchmark_detection, needs_confirmation, needs_third_look
from harness.audit.timed.possible import physically_possible
from harness.audit_catalogue import BENCHMARK_DETECTION, CACHED_ANSWERS, PHYSICALLY_POSSIBLE
from harness.rule_report import RuleVerdict


def split_rounds(m: Measured) -> bool:
    """A bucket's timed rounds split: a second set of rounds must say so too."""
    return any(needs_confirmation(s, m.spec) for s in m.buckets.values())


def marginal_split(m: Measured) -> bool:
    """A bucket's timed rounds and their second set both split, one only narrowly: a third
    set decides (harness/audit/timed/detection.py: ``needs_third_look``)."""
    return any(needs_third_look(s, m.spec) for s in m.buckets.values())


def _cached_answers(m: Measured) -> RuleVerdict:
    return cached_answers(
        m.buckets, m.counters, m.answered, m.spec, m.counters_note, m.temperature, m.failed
    )


def _benchmark_detection(m: Measured) -> RuleVerdict:
    """The filler half over the rounds, the quality half over the paraphrases: one verdict."""
    filler = benchmark_detection(m.buckets, m.spec, m.failed)
    return merged(filler, judge_paraphrases(m.paraphrases, m.spec))


def _split_either(m: Measured) -> bool:
    return split_rounds(m) or needs_second_look(m.paraphrases, m.spec)


def _physically_possible(m: Measured) -> RuleVerdict:
    return physically_possible(m.buckets, m.spec)


CACHED = AuditRule(CACHED_ANSWERS, _cached_answers, split_rounds)
DETECTION = AuditRule(BENCHMARK_DETECTION, _benchmark_detection, _split_either, marginal_split)
# its one-token requests are the rounds phase's too (harness/audit/core.py: _one_token)
POSSIBLE = AuditRule(PHYSICALLY_POSSIBLE, _physically_possible)
