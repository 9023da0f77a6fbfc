"""Was this request answered? One rule for every check and audit rule (docs/audit.md,
"Failed requests"): a request that failed (an HTTP error, a dropped connection, a body the
client could not read) says nothing about the property a check or rule looks at, so it is
never a finding about that property: the check could not be made, and says so, naming the
failure.
"""

from __future__ import annotations

NOT_CHECKED = "could not be checked"


def not_checked(failure: str) -> str:
    """The line of a check or rule whose request failed: what failed, never a finding."""
    return f"{NOT_CHECKED}: {failure}"


def failure_kind(error: str) -> str:
    """A failure's kind, without the server's words: ``"HTTP 500 from /invocations: boom"``
    → ``"HTTP 500 from /invocations"`` (what failures of one kind share, to count them)."""
    return error.split(": ", 1)[0].strip()[:120]
