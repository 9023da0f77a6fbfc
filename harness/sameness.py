"""Same request, same answer: the comparison ``harness check`` (``one_stack``) and
``harness audit`` (rule ``one_stack``) share.

The contest's words are "one model stack serves every endpoint": at temperature 0 the same
prompt gives the same text wherever it is asked (a route, or a body shape on one route: a
chat body and its chat-templated prompt sent raw are the same request to an honest server).
Pure functions over answers already received; the callers send the requests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def first_difference(a: str, b: str, context: int = 30) -> str:
    """A short description of where two texts first differ ('' if equal)."""
    if a == b:
        return ""
    i = 0
    for i, (x, y) in enumerate(zip(a, b, strict=False)):  # noqa: B007 - i used after the loop
        if x != y:
            break
    else:
        i = min(len(a), len(b))
    lo = max(0, i - context)
    return f"differ at char {i}: {a[lo : i + context]!r} vs {b[lo : i + context]!r}"


@dataclass(frozen=True)
class Split:
    """Two ways of asking the same prompt that gave different texts."""

    first: str  # the label of the way every other answer is compared with
    other: str
    difference: str  # first_difference(first's text, other's text)

    def line(self) -> str:
        return f"{self.first} and {self.other} {self.difference}"


def split(answers: Mapping[str, str]) -> Split | None:
    """The first answer (in the mapping's order) that differs from the first one, or None
    when every way of asking gave the same text. ``answers``: label → text, e.g.
    ``{"chat /invocations": …, "prompt /v1/completions": …}``."""
    items = list(answers.items())
    if not items:
        return None
    label, text = items[0]
    for other, got in items[1:]:
        diff = first_difference(text, got)
        if diff:
            return Split(label, other, diff)
    return None
