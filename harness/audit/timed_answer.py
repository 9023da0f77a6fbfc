"""What a timed answer tells: whether it came back, and its time per output token.

Shared by the audit's latency-shaped requests (``report.Sample``) and its quality items
(harness/audit/paraphrases/record.py: ``Asked``)."""

from __future__ import annotations

from typing import Protocol


class _Answered(Protocol):
    error: str | None
    e2e_ms: float | None
    output_tokens: int | None


class TimedAnswer:
    """What a timed answer tells, for any record with ``error``, ``e2e_ms`` and
    ``output_tokens`` (a mixin of properties only: a model's fields and their order in
    ``audit.json`` stay its own)."""

    @property
    def ok(self: _Answered) -> bool:
        return self.error is None and self.e2e_ms is not None

    @property
    def ms_per_token(self: _Answered) -> float | None:
        if self.error is not None or self.e2e_ms is None:
            return None
        return self.e2e_ms / max(1, self.output_tokens or 0)
