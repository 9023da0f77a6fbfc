"""The one line a sweep whose level never succeeded ends with (exit 3), as latency's does."""

from __future__ import annotations

from harness.client.failure import describe
from harness.throughput.report import ThroughputReport


def target_failure(rep: ThroughputReport) -> str | None:
    """Which level failed whole, and its first failure in the server's words with what to do."""
    for lv in rep.levels:
        if lv.n_ok:
            continue
        failed = [r for r in rep.requests if r.level == lv.concurrency and not r.ok]
        said = (
            describe(failed[0].status, failed[0].error, failed[0].error_body, endpoint=rep.endpoint)
            if failed
            else "no request was answered"
        )
        return f"every request at concurrency {lv.concurrency} failed: {said}"
    return None
