"""Profile → config, non-official settings, level items and the report's flags."""

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.profiles import load_profile, parse_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.target import Target
from harness.throughput.analysis import build_report
from harness.throughput.chat_count import render_no_think
from harness.throughput.config import (
    ThroughputOverrides,
    from_profile,
    parse_levels,
    profile_weights,
)
from harness.throughput.report import RequestRow
from harness.throughput.runner import Item, ThroughputState, chat_body, level_items
from harness.tokenizer import load_tokenizer


@pytest.fixture(scope="module")
def paris():
    return load_profile("gpumode-paris")


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer("qwen:Qwen/Qwen3.5-35B-A3B")


def config(profile, url, **overrides):
    """The sweep's config, built as the command builds it: the profile, then the overrides."""
    return from_profile(
        profile, Target(folder=Path("."), url=url), ThroughputOverrides(**overrides)
    )


def test_paris_profile_is_the_graders(paris):
    spec = paris.require_throughput()
    assert spec.levels == [1, 2, 4, 8, 16, 32, 64]
    assert profile_weights(spec) == {1: 1, 2: 1, 4: 2, 8: 2, 16: 4, 32: 4, 64: 8}
    assert (spec.requests_per_level, spec.warmup_per_level, spec.spot_checks_per_level) == (
        64,
        2,
        2,
    )
    assert (spec.prompt_tokens, spec.max_tokens, spec.temperature, spec.top_p) == (1024, 1024, 1, 1)
    # random prompts at 1.0, spot checks at 0.0, no top_p in the body, tok/s rounded to 2
    assert (spec.spot_temperature, spec.send_top_p, spec.tok_s_decimals) == (0.0, False, 2)
    assert (spec.prompt_rounds, len(spec.spot_pool)) == (10, 8)
    assert [(r.name, r.metric, r.threshold, r.zeroes_score) for r in spec.correctness_rules] == [
        ("README", "exact_match,flexible-extract", 0.875, False),
        ("score.py", "exact_match,strict-match", 0.85, True),
    ]
    assert paris.latency is None and paris.server.ready_path == "/health"
    gsm8k = paris.require_quality().benchmarks[0]
    assert (gsm8k.task, gsm8k.num_docs, gsm8k.threshold, gsm8k.num_fewshot) == (
        "gsm8k_cot",
        200,
        0.875,
        8,
    )
    assert paris.check.required == [
        "readiness",
        "served_model",
        "chat_completions",
        "usage",
        "thinking_off",
        "concurrency_64",
    ]


def test_official_config_has_no_non_official_settings(paris):
    cfg = config(paris, "http://127.0.0.1:1/", seed=5)
    assert cfg.url == "http://127.0.0.1:1" and cfg.non_official() == {}
    assert cfg.reuse_prompts and cfg.settings()["weights"] == [1, 1, 2, 2, 4, 4, 8]


def test_overrides_are_recorded_as_non_official(paris):
    cfg = config(
        paris,
        "http://x",
        mode="strict",
        levels="1,2,4",
        requests_per_level=3,
        prompt_tokens=64,
        max_tokens=32,
        force_length=True,
    )
    assert cfg.non_official() == {
        "levels": [1, 2, 4],
        "requests_per_level": 3,
        "prompt_tokens": 64,
        "max_tokens": 32,
        "force_length": True,
        "mode": "strict",
        "reuse_prompts_across_levels": False,
    }
    assert cfg.warmup == 2 and not cfg.reuse_prompts


def test_parse_levels(paris):
    spec = paris.require_throughput()
    assert parse_levels("1, 2,4,2", spec) == (1, 2, 4)
    assert parse_levels(None, spec) == (1, 2, 4, 8, 16, 32, 64)
    with pytest.raises(ConfigError, match="not a level"):
        parse_levels("3", spec)
    with pytest.raises(ConfigError, match="not a whole number"):
        parse_levels("one", spec)
    with pytest.raises(ConfigError, match="empty"):
        parse_levels(",", spec)


def test_weights_must_match_levels():
    data = {
        "name": "x",
        "title": "x",
        "server": {"model": "m"},
        "throughput": {"levels": [1, 2], "weights": [1]},
    }
    with pytest.raises(ConfigError, match="2 levels but 1 weights"):
        profile_weights(parse_profile(data).require_throughput())


def test_chat_body_is_the_graders_and_force_length_spares_spot_checks(paris):
    cfg = config(paris, "http://x", max_tokens=8, force_length=True)
    body = chat_body(cfg, "m", Item("random", "hi", 1))
    assert body == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 8,
        "temperature": 1.0,  # random prompts at 1.0, no top_p (the grader's body)
        "ignore_eos": True,
        "min_tokens": 8,
    }
    spot = chat_body(cfg, "m", Item("spot", "What is 1 + 1?", 8))
    assert "ignore_eos" not in spot and spot["temperature"] == 0.0


def test_strict_levels_draw_fresh_prompts(paris, qwen):
    strict = config(
        paris, "http://x", mode="strict", requests_per_level=4, prompt_tokens=32, seed=1
    )
    _, s1 = level_items(strict, qwen, 1)
    _, s2 = level_items(strict, qwen, 2)
    p1 = {i.prompt for i in s1 if i.kind == "random"}
    assert len(p1) == 4 and not p1 & {i.prompt for i in s2 if i.kind == "random"}
    assert all(qwen.count(i.prompt) == 32 for i in s1 if i.kind == "random")
    # every prompt counted by the grader's rule: its own chat-templated text
    for item in s1:
        msgs = [{"role": "user", "content": item.prompt}]
        assert item.prompt_tokens == qwen.count(render_no_think(msgs))  # type: ignore[arg-type]
        assert item.prompt_tokens > qwen.count(item.prompt)
    assert all(i.spot for i in s1 if i.kind == "spot")


def _row(level, index, *, ok=True, kind="random", out=10, server=10, **kw):
    return RequestRow(
        level=level,
        phase="timed",
        index=index,
        kind=kind,
        ok=ok,
        prompt_tokens=64,
        output_tokens=out if ok else None,
        server_output_tokens=server if ok else None,
        start_ms=float(index),
        end_ms=float(index) + 100.0,
        **kw,
    )


def test_build_report_flags_and_strict_verdict(paris):
    cfg = config(paris, "http://x", mode="strict", levels="1,2", max_tokens=10)
    state = ThroughputState(model="m", levels_done=[1, 2])
    state.rows = [
        _row(1, 0),
        _row(1, 1, kind="spot", spot_question="What is 2 + 2?", spot_expected=4, spot_passed=True),
        _row(2, 0, server=3),  # usage 7 below the text: a mismatch
        _row(2, 1, ok=False, error_kind="timeout"),
        _row(2, 2, kind="spot", spot_question="Q?", spot_expected=4, spot_passed=False),
        _row(2, 3, think_tag=True),
        _row(2, 4, server=30),  # usage 20 above the text: unsettled, a note (no probe here)
    ]
    rep = build_report(cfg, state, Provenance(), complete=True)
    assert [lv.concurrency for lv in rep.levels] == [1, 2]
    assert rep.passed is False and rep.spot_checks_passed is False
    assert not rep.score_complete and not rep.official
    text = "\n".join(f.text for f in rep.flags)
    assert {f.kind for f in rep.flags} == {
        FlagKind.REQUEST_FAILURES,
        FlagKind.USAGE_MISMATCH,
        FlagKind.SPOT_CHECK,
        FlagKind.THINKING_LEAK,
        FlagKind.PARTIAL_SWEEP,
    }
    assert "c=2: 1 of 5 requests failed (timeout ×1)" in text
    assert "more than 4 tokens below the re-tokenised count in 1 answers" in text
    assert len(rep.notes) == 1 and "1 c=2 (+20) tokens" in rep.notes[0]
    # one line for the sweep's failed spot checks, however many
    assert "1 of 2 spot checks failed (c=2; garbage output under load?): first c=2 'Q?'" in text
    assert "contain thinking" in text
    assert "score covers only the measured levels (1, 2)" in text
    official = config(paris, "http://x", levels="1")
    state1 = ThroughputState(model="m", levels_done=[1], rows=state.rows[:2])
    rep1 = build_report(official, state1, Provenance(), complete=True)
    assert rep1.passed is None and rep1.spot_checks_passed
    assert rep1.score == pytest.approx(148 / 0.101)  # 2 × (64 + 10) tokens over 101 ms
