"""The grader's request bodies and caps, the cache key, and the run config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.profiles import load_profile
from harness.quality.cache import ResponseCache, body_key
from harness.quality.config import QualityConfig, QualityOverrides, from_profile
from harness.quality.grader_lm import (
    GraderLM,
    grader_body,
    grader_max_tokens,
    is_raw_completion,
)
from harness.target import Target

OFF = {"chat_template_kwargs": {"enable_thinking": False}}
ON = {"thinking": True}


@pytest.mark.parametrize(
    ("gen", "thinking", "override", "expected"),
    [
        ({"max_gen_toks": 1280}, False, None, 512),  # IFEval: task 1280, cap 512
        ({}, True, None, 12288),  # GPQA: no task value, cap 12288
        ({"max_gen_toks": 256}, False, None, 256),  # task below the cap
        ({"max_gen_toks": 1280}, False, 32, 32),  # non-official cap on top
        ({}, True, 100000, 12288),
    ],
)
def test_grader_max_tokens(gen, thinking, override, expected):
    assert (
        grader_max_tokens(gen, thinking=thinking, cap_off=512, cap_on=12288, override=override)
        == expected
    )


def test_grader_body_off_and_on():
    off = grader_body(
        "Q?",
        {"until": ["x"]},
        thinking=False,
        thinking_fields=OFF,
        cap_off=512,
        cap_on=12288,
    )
    # the grader's key order and no "model" key (spec: Quality)
    assert json.dumps(off) == (
        '{"messages": [{"role": "user", "content": "Q?"}], "max_tokens": 512, '
        '"temperature": 0.0, "chat_template_kwargs": {"enable_thinking": false}}'
    )
    on = grader_body(
        "Q?",
        {},
        thinking=True,
        thinking_fields=ON,
        cap_off=512,
        cap_on=12288,
        stream=True,
    )
    assert list(on) == ["messages", "max_tokens", "temperature", "thinking", "stream"]
    assert on["thinking"] is True and on["max_tokens"] == 12288
    named = grader_body(
        "Q?", {}, thinking=False, thinking_fields=OFF, cap_off=5, cap_on=9, model="M"
    )
    assert list(named)[-1] == "model"  # harness's NON-OFFICIAL --model goes last


@pytest.mark.parametrize(
    ("context", "thinking", "raw"),
    [
        ("Solve it. Let's think step by step.", False, True),
        ("Solve it. Let's think step by step.  \n", False, True),  # rstrip first
        ("Q: 2+2?\nAnswer: Let me see", False, True),  # marker in the last 30 characters
        ("Answer: Let" + "x" * 30, False, False),  # marker too far from the end
        ("Solve it. Let's think step by step.", True, False),  # thinking ON: always chat
        ("Write a poem.", False, False),
    ],
)
def test_raw_completion_branch(context: str, thinking: bool, raw: bool):
    assert is_raw_completion(context, thinking=thinking) is raw
    body = grader_body(
        context,
        {"max_new_tokens": 64},
        thinking=thinking,
        thinking_fields={},
        cap_off=512,
        cap_on=9,
    )
    if raw:
        assert list(body) == ["prompt", "max_tokens", "temperature"]
        assert body["prompt"] == context and body["max_tokens"] == 64
    else:
        assert "prompt" not in body and "messages" in body


def test_max_new_tokens_is_the_fallback():
    gen = {"max_new_tokens": 100}
    assert grader_max_tokens(gen, thinking=False, cap_off=512, cap_on=1, override=None) == 100
    both = {"max_gen_toks": 50, "max_new_tokens": 100}
    assert grader_max_tokens(both, thinking=False, cap_off=512, cap_on=1, override=None) == 50


def test_grader_lm_from_lm_eval_arg_strings():
    lm = GraderLM(base_url="http://127.0.0.1:9/invocations", thinking="true", max_gen_toks="32")
    assert lm.thinking and lm.override == 32 and lm.thinking_fields == {"thinking": True}
    with pytest.raises(ValueError, match="base_url"):
        GraderLM()


def test_cache_key_includes_server_identity(tmp_path: Path):
    body = {"model": "M", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    assert body_key("http://a|M", body) != body_key("http://b|M", body)
    assert body_key("http://a|M", body) != body_key("http://a|M", {**body, "max_tokens": 6})
    reordered = dict(reversed(list(body.items())))
    assert body_key("s", body) == body_key("s", reordered)
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", {"content": "x"})
    assert cache.get("k") == {"content": "x"} and cache.get("other") is None
    cache.close()
    again = ResponseCache(tmp_path / "c.sqlite")  # survives a restart
    assert len(again) == 1
    again.clear()
    assert len(again) == 0
    again.close()


def _cfg(tmp_path: Path, **kw) -> QualityConfig:
    target = Target(folder=tmp_path, url="http://127.0.0.1:8080/")
    overrides = QualityOverrides(data_dir=tmp_path, nltk_data=tmp_path, **kw)
    return from_profile(load_profile("efficient-qwen"), target, overrides)


def test_config_official_and_selection(tmp_path: Path):
    cfg = _cfg(tmp_path)
    assert cfg.endpoint_url == "http://127.0.0.1:8080/invocations"
    assert cfg.non_official() == {}
    assert [b.name for b in cfg.benchmarks()] == ["mmlu_pro", "ifeval", "gpqa_diamond"]
    cfg2 = _cfg(tmp_path, only="gpqa_diamond", max_gen_toks=32, stream=True)
    assert [b.name for b in cfg2.benchmarks()] == ["gpqa_diamond"]
    assert cfg2.non_official() == {"max_gen_toks": 32, "stream": True, "idle_timeout_s": 120.0}
    with pytest.raises(ConfigError, match="unknown benchmark"):
        _cfg(tmp_path, only="nope").benchmarks()


def test_profile_holds_thresholds_and_metrics():
    spec = load_profile("efficient-qwen").require_quality()
    got = {b.name: (b.metric, b.threshold, b.thinking, b.client) for b in spec.benchmarks}
    assert got == {
        "mmlu_pro": ("exact_match,custom-extract", 0.621, False, "local-chat-completions"),
        "ifeval": ("inst_level_strict_acc,none", 0.814, False, "grader"),
        "gpqa_diamond": ("exact_match,flexible-extract", 0.630, True, "grader"),
    }
