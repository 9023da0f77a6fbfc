"""``thinking_default``: asked once with no switch, as the grader's MMLU-Pro bodies are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.conformance.config import CheckOverrides, from_profile
from harness.conformance.report import Result
from harness.conformance.runner import run_checks
from harness.profiles import load_profile
from harness.target import Target
from harness.tokenizer import load_tokenizer
from tests.fixtures.recording import RecordingServer

pytestmark = pytest.mark.timeout(60)

PROFILE = load_profile("efficient-qwen")


def thinks_unless_told(body: dict[str, Any]) -> str:
    switched = body.get("thinking") is not None or "chat_template_kwargs" in body
    return "Paris." if switched else "<think>The capital.</think>Paris."


@pytest.mark.parametrize(
    ("text", "result"), [(thinks_unless_told, Result.WARN), ("Paris.", Result.PASS)]
)
async def test_thinking_by_default_is_a_warning(text: Any, result: Result) -> None:
    tok = load_tokenizer(PROFILE.server.tokenizer)
    with RecordingServer(text=text) as srv:
        plan = from_profile(
            PROFILE,
            Target(folder=Path("."), url=srv.url),
            CheckOverrides(only="thinking_default", ready_timeout_s=2.0, timeout_s=10.0),
        )
        report = await run_checks(plan.cfg, list(plan.planned), tok, tok)
        asked = [r.json() for r in srv.of(method="POST")]
    check = next(c for c in report.checks if c.name == "thinking_default")
    assert check.result is result, check.reason
    mine = [b for b in asked if b["messages"][0]["content"] and "thinking" not in b]
    assert any("chat_template_kwargs" not in b for b in mine)  # the question went without a switch
    if result is Result.WARN:
        assert "thinks by default" in check.reason and "MMLU-Pro" in check.reason
