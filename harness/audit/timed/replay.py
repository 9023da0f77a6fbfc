"""Replayed answers: the text evidence of ``cached_answers`` where the grader samples
(docs/audit.md, "Per profile": the Paris sweep asks at temperature 1.0).

At a temperature above 0 an honest server draws every answer anew: the repeated prompt's
answers differ (two long sampled answers alike are as likely as two shuffled decks). An
exact-response cache replays its first answer: one text, every time. A server that
ignores the temperature (decodes greedily) gives one text too, and pays its decode: so
one text is never a finding alone; with the decode skipped (harness/audit/timed/cached.py),
it needs no second set of rounds, the texts being a second, independent witness.

No I/O: tested with literal values (tests/unit/test_audit_replay.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.audit.report import Sample

# fewer answers to the repeated prompt than this prove nothing by being alike
MIN_ANSWERS = 3


@dataclass(frozen=True)
class Replays:
    """The repeated prompt's answers at a temperature above 0: how many, how many texts."""

    answers: int
    distinct: int

    @property
    def replayed(self) -> bool:
        """One text for every answer: replayed (or not sampled at all)."""
        return self.answers >= MIN_ANSWERS and self.distinct == 1

    @property
    def sampled(self) -> bool:
        """Every answer its own text: each was generated."""
        return self.answers >= 2 and self.distinct == self.answers

    def line(self, temperature: float) -> str:
        return (
            f"{self.answers} answers to the repeated prompt at temperature {temperature:g}, "
            f"{self.distinct} distinct"
        )


def replays(samples: Sequence[Sample]) -> Replays | None:
    """The repeated prompt's answers (warm-ups too); None where no answer was hashed (the
    grader asks at temperature 0: alike answers are what an honest server gives)."""
    digests = [
        s.answer_digest
        for s in samples
        if s.role == "repeated" and s.ok and s.answer_digest is not None
    ]
    if not digests:
        return None
    return Replays(answers=len(digests), distinct=len(set(digests)))
