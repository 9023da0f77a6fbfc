"""Rule stream_consistency over literal events and probes (harness/audit/probes/stream.py): each
way a stream can differ from its non-streamed answer, vLLM's EOS accounting passing, and
the inconclusive cases."""

from __future__ import annotations

import gzip
import json

from harness.audit.probes.record import Probe, Shape
from harness.audit.probes.stream import needs_second_stream, stream_consistency, stream_facts
from harness.client.http import parse_stream, stream_payloads
from harness.client.records import RequestRecord
from harness.rule_report import RuleResult

TEXT = " Once upon a time"


def chunk(text: str | None, finish: str | None = None, chat: bool = True) -> str:
    choice: dict[str, object] = {"index": 0, "finish_reason": finish}
    if chat:
        choice["delta"] = {} if text is None else {"content": text}
    else:
        choice["text"] = text or ""
    return json.dumps({"object": "chat.completion.chunk", "choices": [choice]})


def test_the_facts_of_a_vllm_chat_stream() -> None:
    events = [
        json.dumps({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        chunk(" Once"),
        chunk(" upon a", None),
        chunk(" time", "stop"),
        json.dumps({"choices": [], "usage": {"completion_tokens": 5}}),
        "[DONE]",
    ]
    facts = stream_facts(events)
    assert (facts.first_text, facts.finish_events) == (" Once", 1)
    assert not facts.text_after_finish and facts.eos_in_text == 0


def test_a_second_end_and_text_after_the_finish_are_counted() -> None:
    events = [chunk(" Once", chat=False), chunk(" time", "stop", chat=False),
              chunk("<|im_end|>", "stop", chat=False), "not json", "[DONE]"]  # fmt: skip
    facts = stream_facts(events)
    assert (facts.finish_events, facts.text_after_finish, facts.eos_in_text) == (2, True, 1)
    assert stream_facts([]).first_text is None


def test_the_facts_are_read_from_the_clients_reading_of_the_stream() -> None:
    # one reader for the text the rule compares and the facts it counts: a compressed
    # stream (a server that gzips despite "identity") is undone once, for both
    events = [chunk(" Once"), chunk(" time", "stop"), "[DONE]"]
    gz = gzip.compress("".join(f"data: {e}\n\n" for e in events).encode())
    rec = RequestRecord("/v1/chat/completions", stream=True, content_encoding="gzip", end_ns=3)
    rec.raw = [(1, gz[:9]), (2, gz[9:])]
    payloads = [data for _, data in stream_payloads(rec)]
    assert payloads == events
    facts = stream_facts(payloads)
    assert (facts.first_text, facts.finish_events, facts.text_after_finish) == (" Once", 1, False)
    parse_stream(rec)
    assert (rec.error, rec.text, rec.finish_reason) == (None, " Once time", "stop")


def probe(route: str, shape: Shape, *, stream: bool = False, text: str = TEXT,
          usage: int | None = 5, repeat: bool = False, **facts: object) -> Probe:  # fmt: skip
    return Probe(route=route, shape=shape, stream=stream, repeat=repeat, e2e_ms=100.0,
                 text=text, output_tokens=usage, text_tokens=4, finish_reason="stop",
                 **facts)  # fmt: skip


def answers(text: str = TEXT, again: str = TEXT) -> list[Probe]:
    """The non-streamed answers, each way asked twice (the server shown deterministic)."""
    return [
        probe("/v1/chat/completions", "chat"),
        probe("/v1/completions", "prompt"),
        probe("/v1/chat/completions", "chat", text=again, repeat=True),
        probe("/v1/completions", "prompt", repeat=True),
    ]


def streamed(first: str = " Once", text: str = TEXT, usage: int | None = 5, finishes: int = 1,
             eos: int = 0, after: bool = False) -> list[Probe]:  # fmt: skip
    return [
        probe(
            route,
            shape,
            stream=True,
            text=text,
            usage=usage,
            first_text=first,
            finish_events=finishes,
            eos_in_text=eos,
            text_after_finish=after,
        )
        for route, shape in (("/v1/chat/completions", "chat"), ("/v1/completions", "prompt"))
    ]


def test_a_stream_that_is_its_answer_passes_with_the_eos_counted() -> None:
    # 4 tokens of text, usage 5 with finish "stop": vLLM counts the EOS (harness/usage.py)
    v = stream_consistency(answers() + streamed(), tolerance=4)
    assert v.result is RuleResult.PASS
    assert v.why == (
        "2 streams: the same first token, text and usage as the non-streamed answers, one "
        "end of sequence each"
    )


def test_another_first_token_fails_when_streamed_twice() -> None:
    first = answers() + streamed(first=" Twice", text=" Twice upon a time")
    assert [p.label for p in needs_second_stream(first)] == [
        "chat /v1/chat/completions (streamed)",
        "prompt /v1/completions (streamed)",
    ]
    v = stream_consistency(first, 4)
    assert (v.result, v.by_design) == (RuleResult.INCONCLUSIVE, False)
    # the second look: each streamed twice more, its answer asked once more
    again = [p.model_copy(update={"look": 1}) for p in first[-2:] * 2]
    v = stream_consistency(first + again, 4)
    assert v.result is RuleResult.FAIL
    assert "chat /v1/chat/completions (streamed): the first streamed text ' Twice' is not " in v.why
    assert v.why.endswith("(streamed 3 times)")
    # one of the streams was its answer: an odd stream now and then, not a finding
    honest = [p.model_copy(update={"look": 1}) for p in streamed() + first[-2:]]
    v = stream_consistency(first + honest, 4)
    assert v.result is RuleResult.INCONCLUSIVE and "1 of 3 streams agree" in v.why
    # nor is a streamed text that a non-streamed probe got too (one_stack judges that)
    seen = [*answers(), probe("/invocations", "chat", text=" Twice upon a time")]
    assert stream_consistency(seen + first[-2:] + again, 4).result is RuleResult.INCONCLUSIVE
    assert needs_second_stream(answers() + streamed()) == []


def test_usage_other_than_the_same_answer_not_streamed_fails() -> None:
    v = stream_consistency(answers() + streamed(usage=7), 4)
    assert v.result is RuleResult.FAIL
    assert "usage 7 streamed, 5 not streamed, for the same answer" in v.why
    # below its own text beyond the tolerance, even where no reference usage is known
    refs = [p.model_copy(update={"output_tokens": None}) for p in answers()]
    below = [p.model_copy(update={"text_tokens": 12}) for p in streamed()]
    v = stream_consistency(refs + below, 4)
    assert v.result is RuleResult.FAIL and "usage 5 is below the 12 tokens of its text" in v.why


def test_more_than_one_end_of_sequence_fails() -> None:
    v = stream_consistency(answers() + streamed(finishes=2, after=True), 4)
    assert v.result is RuleResult.FAIL
    assert "more than one end of sequence (2 finish events, 0 end-of-sequence tokens in the " \
        "text, text after the finish)" in v.why  # fmt: skip
    assert stream_consistency(answers() + streamed(eos=1), 4).result is RuleResult.FAIL


def test_a_server_not_shown_deterministic_leaves_a_difference_unjudged() -> None:
    other = streamed(first=" Twice", text=" Twice upon a time")
    other += [p.model_copy(update={"look": 1}) for p in other * 2]
    v = stream_consistency(answers(again=" Else") + other, 4)
    assert (v.result, v.by_design) == (RuleResult.INCONCLUSIVE, False)
    assert v.why.endswith("(the server was not shown deterministic at temperature 0)")
    # nothing asked twice: not shown deterministic either
    v = stream_consistency(answers()[:2] + other, 4)
    assert v.result is RuleResult.INCONCLUSIVE
    # but a second end of sequence needs no determinism to fail
    v = stream_consistency(answers(again=" Else") + streamed(finishes=2), 4)
    assert v.result is RuleResult.FAIL


def test_no_stream_no_usage_no_reference_is_inconclusive() -> None:
    assert stream_consistency(answers(), 4).result is RuleResult.INCONCLUSIVE
    v = stream_consistency(answers() + streamed(usage=None), 4)
    assert v.result is RuleResult.INCONCLUSIVE and "no usage in the stream" in v.why
    failed = [p.model_copy(update={"error": "HTTP 404", "e2e_ms": None}) for p in streamed()]
    v = stream_consistency(answers() + failed, 4)
    assert v.result is RuleResult.INCONCLUSIVE and "HTTP 404" in v.why
    v = stream_consistency(streamed(), 4)
    assert "no non-streamed answer to compare" in v.why
