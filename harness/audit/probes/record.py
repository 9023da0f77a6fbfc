"""One request of the audit's probe phase (rules ``one_stack`` and ``stream_consistency``):
the same prompt asked in the grader's two body shapes, on its routes, streamed or not.

A record only (``audit.json``'s ``probes``); harness/audit/probes/send.py sends them,
harness/audit/probes/stack.py and stream.py judge them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

# "chat": the quality graders' body (messages, thinking off); "prompt": the latency
# grader's body, here the chat-templated text of the same messages sent raw
Shape = Literal["chat", "prompt"]


class Probe(BaseModel):
    """One probe request and what came back."""

    model_config = ConfigDict(extra="forbid")

    route: str  # /invocations, /v1/completions, /v1/chat/completions
    shape: Shape
    stream: bool = False
    look: int = 0  # 0: the first set; 1: the second, independent set (timing confirmation)
    repeat: bool = False  # the same request again: determinism at temperature 0
    warmup: bool = False  # fills a prefix cache with the prompt; neither compared nor timed
    e2e_ms: float | None = None  # send → answer parsed (non-streamed) / last text (streamed)
    text: str = ""
    output_tokens: int | None = None  # usage.completion_tokens
    text_tokens: int | None = None  # the text re-tokenised (the audit's tokenizer)
    finish_reason: str | None = None
    error: str | None = None
    # streamed only: the first event's text, how many events said finish_reason, whether
    # text came after the first of them, end-of-sequence markers seen in the text
    first_text: str | None = None
    finish_events: int | None = None
    text_after_finish: bool | None = None
    eos_in_text: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.e2e_ms is not None

    @property
    def label(self) -> str:
        return f"{self.shape} {self.route}" + (" (streamed)" if self.stream else "")

    @property
    def ms_per_token(self) -> float | None:
        if not self.ok or self.e2e_ms is None:
            return None
        n = self.output_tokens if self.output_tokens is not None else self.text_tokens
        return self.e2e_ms / max(1, n or 0)
