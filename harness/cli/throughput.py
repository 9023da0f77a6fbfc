"""``harness throughput``: the Paris concurrency sweep, its weighted score, and strict additions.

Special beside the kinds' one front end (harness/cli/kind_command.py): a sweep in which
no request succeeded ends with one stderr line saying why (exit 3).
"""

from __future__ import annotations

from typing import Any

from harness.cli.front import Front


def _failure_line(report: Any, rc: int) -> str | None:
    from harness.throughput.console import no_success_line

    return no_success_line(report)


FRONT = Front(
    summary="concurrency sweep and weighted throughput score (GPU MODE Paris)",
    help="concurrency sweep, verified tok/s per level and the weighted score",
    description="The grader's throughput sweep (official), or strict: fresh prompts per "
    "level and failed spot checks fail the run. Settings that differ from the profile's "
    "are recorded as non-official in throughput.json.",
    failure_line=_failure_line,
    json_exclude=frozenset({"requests"}),
)
