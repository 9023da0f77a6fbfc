"""Whether two runs measured the same thing: what differs, in words (pure).

A difference here makes ``compare`` refuse (exit 2): a faster B that sent
shorter prompts, fewer tokens or another benchmark subset is not faster.
Differences that do not change what was measured (a strict-prompt seed, the
number of timed runs) are notes, not refusals. Each kind's own differences are in
its comparison (``harness/<pkg>/compare.py: differences``), built from these helpers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Comparability:
    differences: list[str] = field(default_factory=list)  # refuse when any
    notes: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  # report kinds both runs hold

    @property
    def ok(self) -> bool:
        return not self.differences and bool(self.kinds)

    def reason(self, comparable: Iterable[str] = ()) -> str:
        if not self.kinds:
            listed = ", ".join(comparable) or "none"
            return f"the runs share no report that compare reads ({listed})"
        return "runs are not comparable: " + "; ".join(self.differences)


def differ(what: str, a: Any, b: Any) -> str | None:
    """``what: A …, B …`` when the two values differ, else None."""
    return None if a == b else f"{what}: A {a!r}, B {b!r}"


def some(items: Iterable[str | None]) -> list[str]:
    """The differences found (the Nones dropped)."""
    return [x for x in items if x]
