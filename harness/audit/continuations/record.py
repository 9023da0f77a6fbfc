"""The record of one ``complete_outputs`` check (docs/audit.md): the grader's request, its
answer, and the same prompt continued with that answer at temperature 0 (or, a probe, with
the answer's first ``start`` tokens only).

A type at the bottom: it imports nothing of the audit, so the report can hold it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Continuation(BaseModel):
    """One check: the answer to the grader's request, then the prompt + answer text sent
    again as the prompt, whose next tokens say whether the answer was finished."""

    model_config = ConfigDict(extra="forbid")

    bucket: str
    attempt: int = 1  # 1: after the whole answer; 2, 3…: the probes from inside it
    max_tokens: int  # the grader's, on the answer
    answer_tokens: int | None = None  # usage.completion_tokens, else the text re-tokenised
    answer_finish: str | None = None
    answer_text: str = ""
    continue_max_tokens: int = 0  # the continuation's limit (a few more than the seam needs)
    continued_tokens: int | None = None  # usage.completion_tokens, else the text re-tokenised
    continued_finish: str | None = None
    continued_text: str = ""
    # where the continuation starts: after the answer's first ``start`` tokens (the whole
    # answer's, re-tokenised, when it continues the whole answer); the text sent after the
    # prompt; and where it ended, counted the same way (start + the continuation's text)
    start: int | None = None
    start_text: str = ""
    end: int | None = None
    error: str | None = None  # a request failed: nothing to judge
    requests: int = 0  # requests this check sent (1: the answer ran to max_tokens)

    @property
    def inside(self) -> bool:
        """A probe: it continues the answer from inside, not after its end."""
        return self.attempt > 1

    @property
    def ended_early(self) -> bool:
        """The answer ended before ``max_tokens`` and not for ``length`` (a context limit):
        the server says, or leaves to be believed, that the model ended it, which the
        continuation can check (a server that reports no finish reason is checked too)."""
        return (
            self.error is None
            and self.answer_finish != "length"
            and self.answer_tokens is not None
            and self.answer_tokens < self.max_tokens
        )
