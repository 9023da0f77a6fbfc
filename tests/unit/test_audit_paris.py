"""The Paris profile's ``[audit]`` (tasks/profiles/gpumode-paris.toml): parsed, its floor a
true lower bound, its text evidence (harness/audit/timed/replay.py) both ways, its controls."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from harness.audit.config import AuditOverrides, from_profile
from harness.audit.report import Phase, Role, Sample
from harness.audit.timed.cached import cached_answers
from harness.audit.timed.possible import floor_ms
from harness.audit.timed.replay import replays
from harness.audit.timed.sweep import near_prompt, sweep_prompt, sweep_round_prompts
from harness.errors import ConfigError
from harness.profiles import PROFILES_DIR, load_profile, parse_profile
from harness.prompts import regular_ids
from harness.rule_report import RuleResult
from harness.target import Target
from harness.tokenizer import load_tokenizer

PARIS = load_profile("gpumode-paris")


def test_the_paris_audit_copies_the_sweep_with_three_rules() -> None:
    a = PARIS.audit
    assert (a.workload, a.rules) == (
        "throughput",
        ["cached_answers", "benchmark_detection", "physically_possible"],
    )
    assert (a.min_weight_bytes, a.gpu_bandwidth_bytes_s, a.gpus, a.tokens_per_step) == (
        0.75e9, 4.8e12, 8, 8
    )  # fmt: skip
    cfg = from_profile(PARIS, Target(folder=Path("."), url="http://h:1"), AuditOverrides(seed=1))
    (w,) = cfg.workloads
    assert (w.name, w.prompt_tokens, w.max_tokens, w.random_tokens) == ("sweep", 1024, 1024, True)
    assert (cfg.endpoint, cfg.client, cfg.temperature, cfg.top_p) == (
        "/v1/chat/completions", "aiohttp", 1.0, None
    )  # fmt: skip
    qwen = from_profile(
        load_profile("efficient-qwen"), Target(folder=Path("."), url="http://h:1"), AuditOverrides()
    )
    assert (qwen.client, [w.name for w in qwen.workloads]) == ("urllib", ["short"])
    assert qwen.workloads[0].filler_repeats == 6


def test_the_floor_is_a_true_lower_bound_for_eight_h200() -> None:
    # 0.75 GB (3e9 active parameters at 2 bits) per step over 8 × 4.8 TB/s: 19.5 µs a step
    assert round(floor_ms(8, PARIS.audit) * 1000, 2) == 19.53
    assert round(floor_ms(1024, PARIS.audit), 3) == 2.5  # 128 steps
    # far under the reference vLLM's ~1.35 s a request at c=1 (86.1 s for 64 requests)
    assert floor_ms(1024, PARIS.audit) < 86.1 / 64 * 1000 / 500


def _data() -> dict[str, object]:
    return tomllib.loads((PROFILES_DIR / "gpumode-paris.toml").read_text())


@pytest.mark.parametrize("rule", ["one_stack", "stream_consistency", "complete_outputs"])
def test_a_rule_that_needs_a_prompt_route_is_refused_for_the_sweep(rule: str) -> None:
    data = _data()
    data["audit"]["rules"].append(rule)  # type: ignore[index]
    with pytest.raises(ConfigError, match=f"audit rule.*{rule}.*prompt route"):
        parse_profile(data, "x.toml")


def test_a_workload_the_profile_has_not_is_refused() -> None:
    data = _data()
    data["audit"]["workload"] = "latency"  # type: ignore[index]
    with pytest.raises(ConfigError, match=r"no \[latency\] section"):
        parse_profile(data, "x.toml")
    data["audit"]["workload"] = "sweeps"  # type: ignore[index]
    with pytest.raises(ConfigError, match=r"audit\.workload"):
        parse_profile(data, "x.toml")


def sample(role: Role, ms: float, digest: str, phase: Phase = "timed", i: int = 0) -> Sample:
    return Sample(bucket="sweep", role=role, phase=phase, round=i, prompt_tokens=1036,
                  e2e_ms=ms, output_tokens=300, answer_digest=digest)  # fmt: skip


def rounds(rep_ms: float, same: bool, n: int = 4) -> list[Sample]:
    out = [sample("repeated", rep_ms, "a" if same else f"r{i}", "warmup", i) for i in range(2)]
    for i in range(n):
        out.append(sample("repeated", rep_ms, "a" if same else f"t{i}", i=i))
        out.append(sample("near_filler", 1300.0, f"n{i}", i=i))
    return out


def test_answers_alike_at_temperature_one_are_replayed_only_with_decode_skipped() -> None:
    spec = PARIS.audit
    # a sampler: every answer its own text, decode paid
    honest = cached_answers({"sweep": rounds(1290.0, same=False)}, {}, 10, spec, None, 1.0)
    assert honest.result is RuleResult.PASS
    assert honest.why.startswith("every answer to the repeated prompt at temperature 1 differs")
    # a cache: one text, decode skipped in the timed rounds: no second set needed
    cache = cached_answers({"sweep": rounds(3.0, same=True)}, {}, 10, spec, None, 1.0)
    assert cache.result is RuleResult.FAIL
    assert "6 answers to the repeated prompt at temperature 1, 1 distinct" in cache.why
    # one text but decode paid: a server that ignores the temperature, not a cache
    greedy = cached_answers({"sweep": rounds(1290.0, same=True)}, {}, 10, spec, None, 1.0)
    assert greedy.result is RuleResult.PASS and "differs" not in greedy.why
    # fast but every text its own: not replayed; one look of timing alone never fails
    fast = cached_answers({"sweep": rounds(3.0, same=False)}, {}, 10, spec, None, 1.0)
    assert fast.result is RuleResult.PASS


def test_replays_need_hashed_answers_and_three_alike() -> None:
    assert replays([]) is None
    unhashed = [Sample(bucket="s", role="repeated", phase="timed", round=0, prompt_tokens=1,
                       e2e_ms=1.0, output_tokens=1)]  # fmt: skip
    assert replays(unhashed) is None
    two = replays([sample("repeated", 1.0, "a"), sample("repeated", 1.0, "a")])
    assert two is not None and not two.replayed and not two.sampled
    three = replays([sample("repeated", 1.0, "a")] * 3)
    assert three is not None and three.replayed


def test_the_sweep_controls_keep_the_length_and_differ_from_the_grader_prompt() -> None:
    tok = load_tokenizer(PARIS.server.tokenizer)
    pool = regular_ids(tok)
    base = sweep_prompt(tok, 64, seed=3, rounds=10)
    assert base == sweep_prompt(tok, 64, seed=3, rounds=10)  # seeded: replayable
    n = tok.count(base)
    nears = {near_prompt(tok, base, pool, seed=3, index=i) for i in range(8)}
    assert len(nears) == 8 and base not in nears and {tok.count(t) for t in nears} == {n}
    for i in range(3):
        got = sweep_round_prompts(tok, base, pool, seed=3, index=i)
        assert sorted(p.role for p in got) == ["near_filler", "repeated", "unique_head"]
        assert got[0].role == ("repeated", "near_filler", "unique_head")[i]  # rotates
        assert {p.tokens for p in got} == {n}
        assert next(p.text for p in got if p.role == "repeated") == base


def test_a_look_needs_the_profiles_least_number_of_controls_of_a_comparable_length() -> None:
    from harness.audit.timed.pairs import ratio

    samples = rounds(1290.0, same=False, n=4)
    assert PARIS.audit.min_controls == 4
    assert ratio(samples, ("timed",), min_controls=4) == pytest.approx(1290.0 / 1300.0)
    far = [*samples[:-1], samples[-1].model_copy(update={"output_tokens": 900})]
    assert ratio(far, ("timed",), min_controls=4) is None  # 3 controls of a comparable length
    assert ratio(far, ("timed",)) == pytest.approx(1290.0 / 1300.0)  # Efficient Qwen's 1
    assert ratio(far, ("timed",), any_length=True, min_controls=4) is not None
