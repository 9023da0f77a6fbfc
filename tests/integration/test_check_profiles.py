"""A profile selects checks and their parameters by name: a Paris-style contract
(/health, chat shape, usage on chat, no <think>, 64 concurrent requests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.conformance import Result, run_checks
from harness.conformance.plan import CheckOverrides, from_profile
from harness.flags import Target
from harness.profiles import load_profile
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
