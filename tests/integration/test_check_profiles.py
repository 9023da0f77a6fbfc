"""A profile selects checks and their parameters by name: a Paris-style contract
(/health, chat shape, usage on chat, no <think>, 64 concurrent requests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.conformance.config import CheckOverrides, from_profile
from harness.conformance.report import Result
from harness.conformance.runner import run_checks
from harness.profiles import load_profile
from harness.target import Target
from harness.tokenizer import load_tokenizer

pytestmark = pytest.mark.timeout(120)

PARIS_LIKE = """
name = "paris-like"
title = "a server contract: /health, chat only"
[server]
model = "Qwen/Qwen3.5-35B-A3B"
tokenizer = "qwen:Qwen/Qwen3.5-4B"
ready_path = "/health"
[check]
checks = ["readiness", "chat_completions", "usage", "thinking_off", "concurrency"]
required = ["readiness", "chat_completions", "usage", "thinking_off", "concurrency"]
concurrency = [64]
chat_endpoint = "/v1/chat/completions"
usage_endpoint = "/v1/chat/completions"
"""
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")


def profile(tmp_path: Path):
    path = tmp_path / "paris-like.toml"
    path.write_text(PARIS_LIKE)
    return load_profile(str(path))


async def test_paris_like_profile_runs_its_checks_only(simulator, tmp_path) -> None:
    sim = await simulator(ttft_ms=20.0, itl_ms=0.5)
    plan = from_profile(
        profile(tmp_path), Target(folder=tmp_path, url=sim.url), CheckOverrides(ready_timeout_s=2.0)
    )
    report = await run_checks(plan.cfg, list(plan.planned), TOK, TOK)
    assert [c.name for c in report.checks] == [
        "readiness",
        "chat_completions",
        "usage",
        "thinking_off",
        "concurrency_64",
    ]
    assert all(c.result is Result.PASS and c.required for c in report.checks), [
        (c.name, c.reason) for c in report.checks
    ]
    readiness = report.checks[0]
    assert readiness.reason.startswith("GET /health 200")
    # the graders' name is not served: chat bodies carry the server's own first name
    assert report.model == "Qwen/Qwen3.5-4B"
    usage = report.checks[2]
    assert usage.evidence[0].path == "/v1/chat/completions"
    assert usage.details["client_prompt_tokens"] is None  # the template's tokens: not compared


async def test_paris_like_profile_catches_a_think_leak_and_a_missing_health(
    simulator, tmp_path
) -> None:
    prof = profile(tmp_path)
    sim = await simulator(ttft_ms=20.0, think_leak=True, disable_route=("/health",))
    plan = from_profile(
        prof, Target(folder=tmp_path, url=sim.url), CheckOverrides(ready_timeout_s=2.0)
    )
    report = await run_checks(plan.cfg, list(plan.planned), TOK, TOK)
    failing = {c.name for c in report.checks if c.result is Result.FAIL}
    assert failing == {"readiness", "thinking_off"}
    assert not report.ok


def paris_plan(url: str, tmp_path: Path, only: str = "readiness,served_model"):
    return from_profile(
        load_profile("gpumode-paris"),
        Target(folder=tmp_path, url=url),
        CheckOverrides(only=only, ready_timeout_s=2.0),
    )


async def test_paris_check_fails_a_server_that_does_not_serve_the_graders_model(
    simulator, tmp_path
) -> None:
    # the issue: `simulate` serves Qwen/Qwen3.5-4B; every Paris grader request names the 35B
    sim = await simulator(ttft_ms=5.0, models=("Qwen/Qwen3.5-4B",))
    plan = paris_plan(sim.url, tmp_path)
    assert "served_model" in plan.cfg.required
    report = await run_checks(plan.cfg, list(plan.planned), TOK, TOK)
    by = {c.name: c for c in report.checks}
    assert by["served_model"].result is Result.FAIL
    assert by["served_model"].required
    reason = by["served_model"].reason
    assert "'Qwen/Qwen3.5-35B-A3B'" in reason and "'Qwen/Qwen3.5-4B'" in reason
    assert "404" in reason
    assert not report.ok


async def test_served_model_passes_when_the_graders_model_is_listed(simulator, tmp_path) -> None:
    sim = await simulator(ttft_ms=5.0, models=("Qwen/Qwen3.5-35B-A3B",))
    report = await run_checks(*_planned(paris_plan(sim.url, tmp_path)), TOK, TOK)
    by = {c.name: c for c in report.checks}
    assert by["served_model"].result is Result.PASS, by["served_model"].reason
    assert by["served_model"].reason == "/v1/models lists 'Qwen/Qwen3.5-35B-A3B'"
    assert report.ok


async def test_served_model_asks_the_chat_route_when_there_is_no_model_list(
    simulator, tmp_path
) -> None:
    # no /v1/models: a minimal chat request naming the model decides (not 404: served)
    sim = await simulator(
        ttft_ms=5.0, models=("Qwen/Qwen3.5-35B-A3B",), disable_route=("/v1/models",)
    )
    report = await run_checks(*_planned(paris_plan(sim.url, tmp_path)), TOK, TOK)
    by = {c.name: c for c in report.checks}
    assert by["served_model"].result is Result.PASS, by["served_model"].reason
    assert "HTTP 200" in by["served_model"].reason
    assert [e.path for e in by["served_model"].evidence] == ["/v1/models", "/v1/chat/completions"]
    # ...and a 404 to it fails, naming what is served (nothing listed) and what is expected
    other = await simulator(ttft_ms=5.0, disable_route=("/v1/models",))
    report = await run_checks(*_planned(paris_plan(other.url, tmp_path)), TOK, TOK)
    by = {c.name: c for c in report.checks}
    assert by["served_model"].result is Result.FAIL
    assert "no /v1/models list" in by["served_model"].reason


async def test_efficient_qwen_served_model_passes_on_the_default_simulator(
    simulator, tmp_path
) -> None:
    # the simulator serves Qwen/Qwen3.5-4B, the name Efficient Qwen's graders send (as the
    # CPU reference server does with --served-model-name Qwen/Qwen3.5-4B)
    sim = await simulator(ttft_ms=5.0)
    plan = from_profile(
        load_profile("efficient-qwen"),
        Target(folder=tmp_path, url=sim.url),
        CheckOverrides(only="readiness,served_model", ready_timeout_s=2.0),
    )
    assert "served_model" in plan.cfg.required
    report = await run_checks(plan.cfg, list(plan.planned), TOK, TOK)
    assert [(c.name, c.result) for c in report.checks] == [
        ("readiness", Result.PASS),
        ("served_model", Result.PASS),
    ]


def _planned(plan):
    return plan.cfg, list(plan.planned)


async def test_served_model_passes_a_profile_whose_grader_names_no_model(
    simulator, tmp_path
) -> None:
    path = tmp_path / "no-model.toml"
    path.write_text(
        PARIS_LIKE.replace('model = "Qwen/Qwen3.5-35B-A3B"', 'model = ""')
        .replace('"usage", "thinking_off", "concurrency"]', '"served_model"]')
        .replace('checks = ["readiness", "chat_completions", ', 'checks = ["readiness", ')
        .replace('required = ["readiness", "chat_completions", ', 'required = ["readiness", ')
    )
    sim = await simulator(ttft_ms=5.0)
    plan = from_profile(
        load_profile(str(path)),
        Target(folder=tmp_path, url=sim.url),
        CheckOverrides(ready_timeout_s=2.0),
    )
    report = await run_checks(plan.cfg, list(plan.planned), TOK, TOK)
    assert [(c.name, c.result, c.required) for c in report.checks] == [
        ("readiness", Result.PASS, True),
        ("served_model", Result.PASS, True),
    ]
    assert report.checks[1].reason == "the grader names no model: any served model answers it"
    assert "/v1/chat/completions" not in [e.path for e in sim.log]  # none was needed


def test_paris_check_cli_exits_1_on_a_4b_simulator(sim_process, tmp_path, capsys) -> None:
    # issue 27, item 3, as reported: `harness simulate` (Qwen/Qwen3.5-4B) then a Paris check
    sim = sim_process(models=("Qwen/Qwen3.5-4B",))
    argv = ["check", "--url", sim.url, "--profile", "gpumode-paris", "--out", str(tmp_path)]
    assert main([*argv, "--ready-timeout", "10"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "served_model" in out
    assert "'Qwen/Qwen3.5-35B-A3B'" in out and "'Qwen/Qwen3.5-4B'" in out
