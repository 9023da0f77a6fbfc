"""Which of the audit's requests were answered, and how the others failed (docs/audit.md,
"Failed requests").

A failed request is never evidence of a breach: an honest server fails a request now and
then (an HTTP 500, a dropped connection), and a request that failed reached the engine or
did not, the audit cannot tell. So the server's own success counter is compared with the
requests that were *answered* (a 2xx and a body the grader's client could read), never
with every request sent; a rule judges the answered requests, and names the failures
(status, route, count) where too few remain to judge.

No I/O: tests/unit/test_audit_answered.py holds it with literal records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.client.answered import failure_kind


class _Record(Protocol):
    @property
    def ok(self) -> bool: ...

    error: str | None


class _Check(Protocol):
    requests: int
    error: str | None


def answered(records: Iterable[_Record], checks: Sequence[_Check] = ()) -> int:
    """How many requests came back answered: every record that is ``ok``, and each check's
    requests but the one that failed (a check stops at its first failure)."""
    return sum(r.ok for r in records) + sum(c.requests - (c.error is not None) for c in checks)


def failures(errors: Iterable[str | None], limit: int = 3) -> str | None:
    """The failed requests in one line, by kind (status and route), most first:
    ``"2 × HTTP 500 from /invocations; 1 × timeout"``; None when none failed."""
    kinds = Counter(failure_kind(e) for e in errors if e)
    if not kinds:
        return None
    shown = [f"{n} × {k}" for k, n in kinds.most_common(limit)]
    rest = sum(kinds.values()) - sum(n for _, n in kinds.most_common(limit))
    return "; ".join(shown) + (f"; {rest} more" if rest else "")


# the audit's first requests: when every one failed the same way, the rest would too
FIRST = 5


def all_failed_alike(errors: Sequence[str | None]) -> str | None:
    """The one failure kind of the audit's first :data:`FIRST` requests, when every one
    failed that way (a wrong model name, a missing route: no request will be answered);
    None otherwise (too few yet, one answered, or failures of several kinds)."""
    if len(errors) < FIRST:
        return None
    first = errors[:FIRST]
    if not all(first):
        return None
    kinds = {failure_kind(e) for e in first if e}
    return kinds.pop() if len(kinds) == 1 else None
