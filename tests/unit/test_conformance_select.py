"""Selecting checks by profile, --only and --skip; the report's verdict."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from harness.conformance.registry import required_names, select
from harness.conformance.report import Check, CheckReport, Result
from harness.errors import ConfigError
from harness.profiles import load_profile


def names(items: list) -> list[str]:
    return [p.name for p in items]


def test_every_check_in_run_order_with_the_family_expanded() -> None:
    got = names(select((8, 64), []))
    assert got[:2] == ["readiness", "offline"]
    assert "concurrency_8" in got and "concurrency_64" in got
    assert "concurrency" not in got
    assert {"chat_completions", "usage", "thinking_off", "stream_chat", "bad_input"} <= set(got)


def test_only_and_skip_take_checks_groups_and_families() -> None:
    assert names(select((8, 64), [], only="shapes")) == [
        "invocations_completion",
        "invocations_chat",
        "completions",
        "chat_completions",
        "model_name",
    ]
    assert names(select((8, 64), [], only="concurrency,usage")) == [
        "usage",
        "concurrency_8",
        "concurrency_64",
    ]
    got = names(select((8, 64), [], skip="concurrency_64,streaming"))
    assert "concurrency_8" in got and "concurrency_64" not in got and "stream_chat" not in got


def test_a_profile_list_narrows_the_checks() -> None:
    # the Paris contract: /health, chat shape, usage, no <think>
    got = names(
        select((64,), ["readiness", "chat_completions", "usage", "thinking_off", "concurrency"])
    )
    assert got == ["readiness", "chat_completions", "usage", "thinking_off", "concurrency_64"]


def test_unknown_names_are_config_errors_listing_the_valid_ones() -> None:
    with pytest.raises(ConfigError) as err:
        select((8,), [], only="shape")
    assert "--only: unknown check 'shape'" in str(err.value)
    assert "shapes" in str(err.value) and "chat_completions" in str(err.value)
    with pytest.raises(ConfigError):
        select((8,), ["nope"])


def test_required_names_expand_groups() -> None:
    planned = select((8, 64), [])
    req = required_names(planned, ["shapes", "concurrency_8"])
    assert "chat_completions" in req and "concurrency_8" in req and "concurrency_64" not in req


def test_efficient_qwen_profile_requires_the_graders_behaviours() -> None:
    spec = load_profile("efficient-qwen").check
    req = required_names(select(tuple(spec.concurrency), spec.checks), spec.required)
    assert {"readiness", "chat_completions", "usage", "thinking_off", "long_input"} <= req
    assert "concurrency_64" not in req and "determinism" not in req


def check(name: str, result: Result, required: bool = True) -> Check:
    return Check(name=name, group=name, title=name, required=required, result=result, reason="r")


def test_report_verdict_and_round_trip(tmp_path) -> None:
    report = CheckReport(
        url="http://127.0.0.1:1",
        wall_s=1.5,
        checks=[
            check("a", Result.PASS),
            check("b", Result.FAIL, required=False),
            check("c", Result.WARN),
            check("d", Result.SKIP),
        ],
    )
    assert report.ok
    assert (
        report.summary_line()
        == "all required checks pass — 1 pass, 1 fail, 1 warn, 1 skip in 1.5 s"
    )
    report.checks.append(check("e", Result.FAIL))
    assert not report.ok and [c.name for c in report.failing_required()] == ["e"]
    report.save(tmp_path)
    again = CheckReport.load(tmp_path)
    assert again.checks == report.checks and (tmp_path / "check.json").exists()


def _plan(url: str, profile: str = "efficient-qwen", **overrides):
    from harness.conformance.config import CheckOverrides, from_profile
    from harness.target import Target

    return from_profile(
        load_profile(profile), Target(folder=Path("."), url=url), CheckOverrides(**overrides)
    )


def test_plan_run_takes_the_profile_parameters_and_rejects_a_bad_url() -> None:
    from harness.errors import UsageError

    plan = _plan("http://h:8080/")
    cfg, planned = plan.cfg, plan.planned
    assert cfg.url == "http://h:8080"
    assert (cfg.chat_endpoint, cfg.usage_endpoint, cfg.long_endpoint) == (
        "/invocations",
        "/v1/completions",
        "/invocations",
    )
    assert cfg.long_bucket_max_tokens == 256 and cfg.limit_tokens == 32
    assert cfg.thinking_off == {"chat_template_kwargs": {"enable_thinking": False}}
    assert cfg.thinking_on == {"thinking": True}
    assert cfg.checks == tuple(p.name for p in planned)
    with pytest.raises(UsageError, match="not an http"):
        _plan("localhost:8080")


def test_chat_dependency_follows_the_graders_chat_endpoint_and_model_choice() -> None:
    from harness.conformance.runner import choose_model, resolve_needs

    inv = _plan("http://u").cfg  # efficient-qwen: the graders post chat bodies to /invocations
    chat = _plan("http://u", profile="gpumode-paris").cfg
    assert (inv.chat_endpoint, inv.graders_model) == ("/invocations", "Qwen/Qwen3.5-4B")
    chat = replace(chat, graders_model="Q")
    assert resolve_needs(("@chat", "determinism"), inv) == ("invocations_chat", "determinism")
    assert resolve_needs(("@chat",), chat) == ("chat_completions",)
    assert choose_model(chat, ["Q", "short"]) == "Q"
    assert choose_model(chat, ["other"]) == "other"
    assert choose_model(chat, []) == "Q"
