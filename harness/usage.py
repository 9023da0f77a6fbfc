"""One rule for a server's ``usage.completion_tokens``, used by latency and throughput alike.

The text of an answer cannot always say how many tokens were generated. What a
truthful vLLM reports (docs/timing.md, "Output tokens and usage"):

(a) an answer that ends because the model emitted its EOS token (finish ``stop``)
    counts that token: usage = re-tokenised text + 1;
(b) special tokens the detokeniser skips (``skip_special_tokens``) are generated,
    timed and counted, but absent from the text: usage can exceed the text by any
    amount (the CPU reference server's small model answers the long filler with
    usage 256, finish ``length``, text ``"\\nThe"``);
(c) re-tokenising the text may give a slightly different count than the ids the
    model generated (a non-canonical split); ``tolerance`` tokens allow for it.

So :func:`judge_usage` says, per answer:

- ``agree``: usage equals the text's count, or exceeds it by exactly the EOS;
- ``below``: usage is more than ``tolerance`` tokens BELOW the text: nothing a truthful
  server does explains it (the text proves the tokens were there) — a risk flag;
- ``unsettled``: anything else, above all usage above the text: (b) or an inflated
  usage, and the text alone cannot tell which. This is never flagged on a guess: a
  report says so in one informational line (:func:`unsettled_line`) and, where a
  harness extra may be sent, one request asks the server for its own token ids
  (:func:`probe_fields`, :func:`ids_from_reply`); only when that independent count
  disagrees with the usage it reported (:func:`judge_probe`) is there a flag.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel

from harness.risk import FlagKind, RiskFlag

EOS_TOKENS = 1  # vLLM counts the one EOS token that ends a "stop" answer


class UsageVerdict(StrEnum):
    AGREE = "agree"
    BELOW = "below"
    UNSETTLED = "unsettled"
    UNKNOWN = "unknown"  # no usage, or no text count (a failed request)


def judge_usage(
    text_tokens: int | None, usage_tokens: int | None, finish_reason: str | None, tolerance: int
) -> UsageVerdict:
    """The verdict for one answer (pure; see the module docstring)."""
    if text_tokens is None or usage_tokens is None:
        return UsageVerdict.UNKNOWN
    extra = usage_tokens - text_tokens
    if extra == 0 or (extra == EOS_TOKENS and finish_reason == "stop"):
        return UsageVerdict.AGREE
    if extra < -tolerance:
        return UsageVerdict.BELOW
    return UsageVerdict.UNSETTLED


def verdicts(rows: Iterable[Any], tolerance: int) -> list[UsageVerdict]:
    """The verdict of every row that has ``output_tokens``, ``server_output_tokens`` and
    ``finish_reason`` (latency's and throughput's rows both do)."""
    return [
        judge_usage(r.output_tokens, r.server_output_tokens, r.finish_reason, tolerance)
        for r in rows
    ]


def unsettled_line(
    groups: Sequence[tuple[str, Sequence[Any]]], tolerance: int, how_to_settle: str
) -> str:
    """The ONE informational line for answers whose usage the text cannot explain.

    ``groups``: (where, rows), e.g. ("official long", [...]); rows need ``output_tokens``,
    ``server_output_tokens`` and ``finish_reason``."""
    parts: list[str] = []
    for where, rows in groups:
        gaps = [
            r.server_output_tokens - r.output_tokens
            for r in rows
            if judge_usage(r.output_tokens, r.server_output_tokens, r.finish_reason, tolerance)
            is UsageVerdict.UNSETTLED
        ]
        if gaps:
            lo, hi = min(gaps), max(gaps)
            span = f"{lo:+d}" if lo == hi else f"{lo:+d} to {hi:+d}"
            parts.append(f"{len(gaps)} {where} ({span})")
    return (
        "usage: answers whose usage.completion_tokens differs from their re-tokenised text "
        f"by more than the EOS: {', '.join(parts)} tokens; special tokens the detokeniser "
        f"skips, or inflated usage: the text cannot tell which. {how_to_settle}"
    )


# ---- settling it: the server's own token ids ---------------------------------------------

ProbeSource = Literal["token_ids", "logprobs"]
ProbeResult = Literal["agrees", "disagrees", "unsupported", "failed"]


def probe_fields(chat: bool, *, logprobs: bool = False) -> dict[str, Any]:
    """What a probe adds to its body: vLLM's ``return_token_ids`` (``choices[0].token_ids``),
    or, for a server without it, logprobs (one entry per generated token). Never both:
    vLLM answers 400 "Out of range float values" when a generated token's logprob is
    -inf (seen on the long filler), though its token ids were fine."""
    if logprobs:
        return {"logprobs": True} if chat else {"logprobs": 0}
    return {"return_token_ids": True}


def ids_from_reply(body: Any) -> tuple[list[int] | None, ProbeSource | None]:
    """The generated tokens a reply lists: ``choices[0].token_ids`` (vLLM), else the
    logprobs entries (completions ``logprobs.tokens``, chat ``logprobs.content``).
    Logprob entries carry no ids: those come back as ``-1`` placeholders (counted only)."""
    if not isinstance(body, dict):
        return None, None
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None, None
    first = choices[0]
    ids = first.get("token_ids")
    if isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return list(ids), "token_ids"
    lp = first.get("logprobs")
    if isinstance(lp, dict):
        entries = lp.get("tokens") if isinstance(lp.get("tokens"), list) else lp.get("content")
        if isinstance(entries, list):
            return [-1] * len(entries), "logprobs"
    return None, None


class UsageCheck(BaseModel):
    """One probe: a request outside the measured traffic that asked for the token ids."""

    mode: str  # official | strict (latency) or throughput
    name: str  # bucket name or "c=<level>"
    endpoint: str
    prompt: str  # which prompt was re-sent: "official filler", "strict prompt #3", …
    result: ProbeResult
    source: ProbeSource | None = None
    usage_tokens: int | None = None  # usage.completion_tokens of the probe's answer
    id_tokens: int | None = None  # how many generated tokens the server listed
    special_tokens: int | None = None  # of those, ids our tokenizer knows as special
    text_tokens: int | None = None  # the probe answer's text, re-tokenised
    finish_reason: str | None = None
    error: str | None = None

    def line(self) -> str:
        """What the report says about this probe (one line)."""
        head = f"usage probe, {self.mode} {self.name} ({self.prompt}, {self.endpoint}): "
        if self.result == "failed":
            return head + f"failed ({self.error}); usage stays unsettled"
        if self.result == "unsupported":
            return head + "the server listed no token ids nor logprobs; usage stays unsettled"
        listed = f"{self.id_tokens} generated tokens listed ({self.source})"
        if self.special_tokens:
            listed += f", {self.special_tokens} of them special tokens absent from the text"
        if self.result == "agrees":
            return head + f"usage {self.usage_tokens} = {listed}: usage is truthful"
        return head + f"usage {self.usage_tokens} ≠ {listed}: usage is not the generated count"


def judge_probe(usage_tokens: int | None, id_tokens: int | None) -> ProbeResult:
    """``agrees`` when the server's own list of generated tokens has usage's length."""
    if id_tokens is None:
        return "unsupported"
    if usage_tokens is None:
        return "failed"
    return "agrees" if usage_tokens == id_tokens else "disagrees"


def probe_flags(checks: Sequence[UsageCheck], source: str) -> list[RiskFlag]:
    """A USAGE_MISMATCH flag per probe whose token ids disagree with its usage: the only
    way an answer's usage ABOVE its text is ever flagged."""
    return [
        RiskFlag(kind=FlagKind.USAGE_MISMATCH, text=f"usage-mismatch: {c.line()}", source=source)
        for c in checks
        if c.result == "disagrees"
    ]


def how_to_settle(checks: Sequence[UsageCheck], probing: bool, enable_hint: str) -> str:
    """The end of the unsettled line: why nothing settled it, or how to."""
    if checks:
        return "The usage probe could not settle it (its line says why)."
    if probing:
        return "No usage probe was sent (the run stopped early)."
    return enable_hint
