"""One request of ``benchmark_detection``'s quality half (docs/audit.md): a quality
grader's item, as the grader sends it, or a light paraphrase of it.

A record only (``audit.json``'s ``paraphrases``); harness/audit/paraphrases/send.py sends them,
harness/audit/paraphrases/rule.py judges them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness.audit.timed_answer import TimedAnswer

# "original": the grader's exact user message; "paraphrase": one neutral word changed
Form = Literal["original", "paraphrase"]


class Asked(TimedAnswer, BaseModel):
    """One quality item asked, and what came back."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str  # ifeval, gpqa_diamond
    item: str  # the item's key in its dataset
    form: Form
    look: int = 0  # 0: the first set; 1: the second, independent set
    text: str = ""  # the user message sent
    e2e_ms: float | None = None  # the grader's timer: before json.dumps → after json.loads
    output_tokens: int | None = None  # usage.completion_tokens, else the text re-tokenised
    finish_reason: str | None = None
    error: str | None = None
