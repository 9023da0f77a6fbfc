"""Rule one_stack over literal probes (harness/audit/probes/stack.py) and the comparison it shares
with ``harness check`` (harness/sameness.py): both outcomes, and the inconclusive cases."""

from __future__ import annotations

from harness.audit.probes.record import Probe, Shape
from harness.audit.probes.stack import needs_confirmation, one_stack, speeds
from harness.audit.rules import in_profile_order, judge_probes
from harness.profiles import AuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.sameness import split

SPEC = AuditSpec(rules=["cached_answers", "one_stack"])
TEXT = " Once upon a time"


def probe(route: str, shape: Shape, ms: float, text: str = TEXT, look: int = 0,
          repeat: bool = False) -> Probe:  # fmt: skip
    return Probe(route=route, shape=shape, look=look, repeat=repeat, e2e_ms=ms, text=text,
                 output_tokens=64, finish_reason="length")  # fmt: skip


def one_set(chat_ms: float = 640.0, prompt_ms: float = 640.0, look: int = 0, **texts: str
            ) -> list[Probe]:  # fmt: skip
    """The plan's probes: a warm-up (first set only), then each way of asking twice."""
    ways: list[tuple[str, str, Shape, float]] = [
        ("b", "/v1/chat/completions", "chat", chat_ms),
        ("a", "/invocations", "chat", chat_ms),
        ("d", "/v1/completions", "prompt", prompt_ms),
        ("c", "/invocations", "prompt", prompt_ms),
    ]
    out = [] if look else [probe("/invocations", "prompt", 900.0, " cold", 0)]
    out[:1] = [p.model_copy(update={"warmup": True}) for p in out]
    for again in (False, True):
        for key, route, shape, ms in ways:
            text = texts.get(key + "2" if again else key, texts.get(key, TEXT))
            out.append(probe(route, shape, ms, text, look, repeat=again))
    return out


def test_split_names_the_first_way_of_asking_that_differs() -> None:
    assert split({}) is None
    assert split({"a": "x", "b": "x", "c": "x"}) is None
    got = split({"a": "abc", "b": "abc", "c": "abX"})
    assert got is not None and got.line() == "a and c differ at char 2: 'abc' vs 'abX'"


def test_one_answer_at_one_speed_passes() -> None:
    v = one_stack(one_set(640.0, 600.0), SPEC)
    assert v.result is RuleResult.PASS
    assert v.why == (
        "the same answer (64 tokens) through 4 routes and body shapes, at the same speed "
        "(within 20%)"
    )
    assert not needs_confirmation(one_set(640.0, 600.0), SPEC)


def test_another_answer_by_body_shape_fails_when_a_second_set_agrees() -> None:
    first = one_set(c=" Other", d=" Other")
    assert needs_confirmation(first, SPEC)
    v = one_stack(first, SPEC)
    assert (v.result, v.by_design) == (RuleResult.INCONCLUSIVE, False)
    assert v.why.endswith("and no second set of probes agreed")
    v = one_stack(first + one_set(look=1, c=" Other", d=" Other"), SPEC)
    assert v.result is RuleResult.FAIL
    assert v.why.endswith(
        "chat /v1/chat/completions and prompt /v1/completions differ at char 2: "
        "' Once upon a time' vs ' Other'"
    )
    # the warm-up's answer (a cold prefill may round otherwise) is never compared
    assert one_stack(one_set(), SPEC).result is RuleResult.PASS


def test_a_split_the_second_set_does_not_repeat_is_noise() -> None:
    """A group that answered otherwise once (a cold cache's rounding) is not a second stack."""
    v = one_stack(one_set(b=" Other") + one_set(look=1), SPEC)
    assert v.result is RuleResult.INCONCLUSIVE
    assert "chat /v1/chat/completions answered the same request twice differently" in v.why


def test_a_server_not_deterministic_at_temperature_0_is_inconclusive() -> None:
    v = one_stack(one_set(d=" Other", a2=" Else"), SPEC)
    assert (v.result, v.by_design) == (RuleResult.INCONCLUSIVE, False)
    assert "chat /invocations answered the same request twice differently" in v.why
    # where every way of asking agreed anyway, it passes, and says so
    again = probe("/invocations", "chat", 640.0, " Else", repeat=True)
    v = one_stack([*one_set(), again], SPEC)
    assert v.result is RuleResult.PASS and "twice differently" in v.why


def test_a_faster_shape_fails_only_when_a_second_set_agrees() -> None:
    first = one_set(640.0, 400.0)  # prompt bodies at 62.5 % of the chat bodies' time
    assert needs_confirmation(first, SPEC)
    assert speeds(first, 0)["prompt /invocations"] == 0.625
    assert one_stack(first, SPEC).result is RuleResult.PASS
    assert one_stack(first + one_set(640.0, 630.0, look=1), SPEC).result is RuleResult.PASS
    v = one_stack(first + one_set(640.0, 420.0, look=1), SPEC)
    assert v.result is RuleResult.FAIL
    assert "prompt /invocations at 62% then 66% of the others' time per token" in v.why


def test_one_fast_route_is_caught_against_the_others() -> None:
    probes = [  # only /v1/completions is fast
        p.model_copy(update={"e2e_ms": 320.0}) if p.route == "/v1/completions" else p
        for p in one_set()
    ]
    assert speeds(probes, 0) == {
        "chat /v1/chat/completions": 1.0,
        "prompt /v1/completions": 0.5,
        "chat /invocations": 1.0,
        "prompt /invocations": 1.0,
    }


def test_answers_of_other_lengths_are_not_timed() -> None:
    probes = one_set(640.0, 300.0)
    for p in probes[1:4]:
        p.output_tokens = 20
    assert speeds(probes, 0) == {}


def test_no_answer_is_inconclusive_and_names_the_route() -> None:
    probes = one_set()
    for p in probes:
        if p.route == "/v1/completions":
            p.error, p.e2e_ms = "HTTP 404 from /v1/completions", None
    v = one_stack(probes, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why == "no answer through prompt /v1/completions (HTTP 404 from /v1/completions)"
    assert one_stack([], SPEC).result is RuleResult.INCONCLUSIVE


def test_probe_rules_join_the_round_rules_in_the_profiles_order() -> None:
    spec = AuditSpec(rules=["one_stack", "cached_answers"])
    (stack,) = judge_probes(spec, one_set())
    cached = RuleVerdict(rule="cached_answers", title="", result=RuleResult.PASS, why="")
    assert [v.rule for v in in_profile_order(spec, [cached, stack])] == [
        "one_stack",
        "cached_answers",
    ]
    assert judge_probes(AuditSpec(rules=["cached_answers"]), one_set()) == []


def test_a_second_stack_blocks_the_gate_and_names_the_routing_risk() -> None:
    from harness.audit.gate_rules import audit_rules
    from harness.audit.report import AuditReport
    from harness.provenance import Provenance
    from harness.risk import FlagKind

    v = one_stack(one_set(d=" Other") + one_set(look=1, d=" Other"), SPEC)
    rep = AuditReport(url="http://h:1", rules=[v], provenance=Provenance(), complete=True)
    reasons, flags = audit_rules(rep, 600.0)
    assert [r.text for r in reasons if r.blocking] == [f"audit rule one_stack failed: {v.why}"]
    assert [f.kind for f in flags] == [FlagKind.ENDPOINT_ROUTING]
