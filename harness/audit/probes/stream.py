"""Rule ``stream_consistency`` (MLPerf TEST06's analogue) as pure functions over the probes
(docs/audit.md, "stream_consistency").

A streamed answer is the non-streamed answer, sent in pieces: at temperature 0 the same
request streamed (``stream_options.include_usage``) and not streamed must agree on

- the first token: the first streamed text is where the non-streamed text begins (a server
  that streams a quick first token from another model fails);
- the tokens counted: the stream's ``usage.completion_tokens`` is the non-streamed
  answer's, and is not below its own re-tokenised text by more than the tolerance
  (harness/usage.py: vLLM counts the EOS that ends a "stop" answer);
- one end of sequence: one event says ``finish_reason``, no text follows it, and the text
  holds no end-of-sequence token of its own;
- the text: the whole streamed text is the non-streamed text.

The first and the last need a server that is deterministic at temperature 0, and a second
look: a stream whose text differs is streamed twice more (and its non-streamed answer
asked once more), and fails only if every stream differs, with texts no non-streamed probe
got, on a server the probe phase saw answer every
request the same way twice (where it saw one answered two ways, or asked nothing twice,
a difference is inconclusive, never a failure).

No I/O, no clocks: tests/unit/test_audit_stream.py holds it with literal events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.audit.probes.record import Probe
from harness.audit.probes.stack import groups, unstable
from harness.audit_catalogue import STREAM_CONSISTENCY
from harness.client.http import read_chunk
from harness.rule_report import RuleResult, RuleVerdict
from harness.usage import UsageVerdict, judge_usage

RULE = STREAM_CONSISTENCY.name
TITLE = "stream consistency: a stream is the non-streamed answer, one end, honest usage"
# end-of-sequence tokens of ChatML models (Qwen's, and the reference server's small model)
EOS_TEXTS = ("<|im_end|>", "<|endoftext|>")


@dataclass(frozen=True)
class StreamFacts:
    """What a stream's events say beyond its text (parse_stream keeps the text and usage)."""

    first_text: str | None  # the first event's non-empty text
    finish_events: int  # events whose finish_reason is set
    text_after_finish: bool  # text arrived after the first such event
    eos_in_text: int  # end-of-sequence tokens written out in the text


def stream_facts(events: Sequence[str]) -> StreamFacts:
    """The facts of a stream from its ``data:`` payloads, in order (``[DONE]`` included),
    each read by the client's one reader of a stream (harness/client/http.py:
    ``read_chunk``; a payload it fails the request on says nothing here)."""
    first: str | None = None
    finishes, after, texts = 0, False, []
    for data in events:
        c = read_chunk(data)
        if not c.choice:
            continue
        if c.content:
            after = after or finishes > 0
            first = c.content if first is None else first
            texts.append(c.content)
        if c.ends:
            finishes += 1
    joined = "".join(texts)
    return StreamFacts(first, finishes, after, sum(joined.count(e) for e in EOS_TEXTS))


def _reference(probes: Sequence[Probe], s: Probe) -> Probe | None:
    return next(
        (
            p
            for p in probes
            if not p.stream and not p.warmup and p.ok and p.route == s.route
            and p.shape == s.shape
        ),
        None,
    )  # fmt: skip


def differs(s: Probe, ref: Probe) -> str | None:
    """How a stream's text differs from its non-streamed answer (None: it does not)."""
    head = s.first_text or ""
    if not ref.text.startswith(head):
        return f"{s.label}: the first streamed text {head!r} is not where the answer begins " + (
            f"({ref.text[:24]!r})"
        )
    if s.text != ref.text:
        return f"{s.label}: the streamed text differs from the non-streamed answer"
    return None


# the second look at a stream whose text differed: streamed this many times more, and its
# non-streamed answer asked once more (a server that flips between two answers now and then
# must flip every stream, and never its answers, to look like a cheat: q**3 · (1-q)**9)
SECOND_LOOK = 2


def needs_second_stream(probes: Sequence[Probe]) -> list[Probe]:
    """The first streams whose text differs from their answer: each gets a second look
    before the difference may fail the rule (one odd answer is not a finding)."""
    out = []
    for s in probes:
        ref = _reference(probes, s) if s.stream and s.look == 0 and s.ok else None
        if ref is not None and differs(s, ref):
            out.append(s)
    return out


def _problems(
    s: Probe, ref: Probe, again: Sequence[Probe], answered: set[str], tolerance: int,
    deterministic: bool,
) -> tuple[list[str], list[str]]:  # fmt: skip
    """(what fails, what is left unjudged) for one stream against its non-streamed answer;
    ``again``: the same stream asked again (the second look), if it was; ``answered``:
    every text a non-streamed probe got."""
    fails: list[str] = []
    unjudged: list[str] = []
    what = differs(s, ref)
    every = [s, *again]
    # a streamed text that another way of asking got too is one_stack's business (or noise)
    unseen = {p.text for p in every}.isdisjoint(answered)
    if (
        what
        and deterministic
        and len(every) >= SECOND_LOOK + 1
        and unseen
        and all(differs(p, ref) for p in every)
    ):
        fails.append(what + f" (streamed {len(every)} times)")
    elif what:
        same = sum(differs(p, ref) is None for p in every)
        unjudged.append(what + ("" if not again else f", {same} of {len(every)} streams agree"))
    ends = (s.finish_events or 0) + (s.eos_in_text or 0)
    if ends > 1 or s.text_after_finish:
        fails.append(
            f"{s.label}: more than one end of sequence ({s.finish_events} finish events, "
            f"{s.eos_in_text} end-of-sequence tokens in the text"
            + (", text after the finish" if s.text_after_finish else "")
            + ")"
        )
    if s.output_tokens is None:
        unjudged.append(f"{s.label}: no usage in the stream")
    elif (
        s.text == ref.text
        and ref.output_tokens is not None
        and s.output_tokens != ref.output_tokens
    ):
        fails.append(
            f"{s.label}: usage {s.output_tokens} streamed, {ref.output_tokens} not streamed, "
            "for the same answer"
        )
    elif judge_usage(s.text_tokens, s.output_tokens, s.finish_reason, tolerance) is (
        UsageVerdict.BELOW
    ):
        fails.append(
            f"{s.label}: usage {s.output_tokens} is below the {s.text_tokens} tokens of its text"
        )
    return fails, unjudged


def stream_consistency(probes: Sequence[Probe], tolerance: int) -> RuleVerdict:
    streams = [p for p in probes if p.stream]
    by = groups(probes)
    noisy = unstable(by)
    deterministic = noisy is None and any(len([p for p in ps if p.ok]) > 1 for ps in by.values())
    evidence: dict[str, object] = {
        s.label: {
            "first_text": s.first_text,
            "usage": s.output_tokens,
            "text_tokens": s.text_tokens,
            "finish_events": s.finish_events,
            "eos_in_text": s.eos_in_text,
            "error": s.error,
        }
        for s in streams
    }
    if noisy:
        evidence["nondeterministic"] = noisy
    fails: list[str] = []
    unjudged: list[str] = []
    answered = {p.text for p in probes if not p.stream and p.ok}
    for s in [p for p in streams if p.look == 0]:
        ref = _reference(probes, s)
        if not s.ok or ref is None:
            unjudged.append(f"{s.label}: " + (s.error or "no non-streamed answer to compare"))
            continue
        again = [p for p in streams if p.look == 1 and p.label == s.label and p.ok]
        f, u = _problems(s, ref, again, answered, tolerance, deterministic)
        fails += f
        unjudged += u
    if fails:
        return RuleVerdict(rule=RULE, title=TITLE, result=RuleResult.FAIL,
                           why="the stream is not the non-streamed answer: " + "; ".join(fails),
                           evidence=evidence)  # fmt: skip
    if unjudged or not streams:
        reason = "; ".join(unjudged) or "no stream was asked"
        if not deterministic and any("differs" in u or "first streamed" in u for u in unjudged):
            reason += " (the server was not shown deterministic at temperature 0)"
        return RuleVerdict(rule=RULE, title=TITLE, result=RuleResult.INCONCLUSIVE, why=reason,
                           evidence=evidence)  # fmt: skip
    return RuleVerdict(
        rule=RULE, title=TITLE, result=RuleResult.PASS,
        why=f"{len(streams)} streams: the same first token, text and usage as the non-streamed "
        "answers, one end of sequence each",
        evidence=evidence,
    )  # fmt: skip
