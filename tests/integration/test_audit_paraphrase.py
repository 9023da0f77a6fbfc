"""benchmark_detection's quality half against the simulator: a server that recognises the
quality graders' prompts (the shipped items' exact text) and serves them otherwise fails,
canned or routed to a bigger model; an honest one passes (docs/audit.md; style rule 26)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.audit.config import AuditOverrides, from_profile
from harness.audit.core import exit_code, measure_audit
from harness.audit.report import AuditReport
from harness.errors import EXIT_FAIL, EXIT_OK
from harness.grader_items import grader_items
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.rule_report import RuleResult, RuleVerdict
from harness.target import Target

pytestmark = pytest.mark.timeout(180)

BASE = load_profile("efficient-qwen")
# the rule alone: 2 rounds of the filler half, then the quality half at the profile's size
PROFILE = BASE.model_copy(
    update={"audit": BASE.audit.model_copy(update={"rules": ["benchmark_detection"]})}
)
# 3 ms a token: ~100 ms a request, whose timing a loaded test machine barely moves
HONEST: dict[str, Any] = {"ttft_ms": 5.0, "itl_ms": 3.0, "prefix_cache": True, "jitter_pct": 2}


async def detection(url: str, folder: Path) -> tuple[RuleVerdict, AuditReport]:
    o = AuditOverrides(ready_timeout_s=5.0, timeout_s=30.0, seed=7, rounds=2)
    rep = await measure_audit(
        from_profile(PROFILE, Target(folder=folder, url=url), o),
        provenance=Provenance(),
        folder=folder,
    )
    (v,) = rep.rules
    return v, rep


async def test_an_honest_server_serves_the_graders_items_like_their_paraphrases(
    simulator, tmp_path
):
    sim = await simulator(**HONEST)
    v, rep = await detection(sim.url, tmp_path)
    assert v.result is RuleResult.PASS, v.why
    assert "quality prompts: the quality graders' prompts cost" in v.why
    assert exit_code(rep) == EXIT_OK
    # one look: 8 items, each as the grader sends it and paraphrased, interleaved
    assert len(rep.paraphrases) == 16 and {a.look for a in rep.paraphrases} == {0}
    assert [a.form for a in rep.paraphrases[:4]] == [
        "original", "paraphrase", "paraphrase", "original"]  # fmt: skip
    items = grader_items()[:8]
    assert {a.benchmark for a in rep.paraphrases} == {"ifeval", "gpqa_diamond"}
    originals = [a.text for a in rep.paraphrases if a.form == "original"]
    assert sorted(originals) == sorted(i.text for i in items)
    # the bodies reached the quality route as the grader's chat bodies, capped at 32 tokens
    chats = [e for e in sim.log if e.kind == "chat" and e.path == "/invocations" and e.body]
    first = next(e.body for e in chats if e.body["messages"][0]["content"] == items[0].text)
    assert first == {
        "messages": [{"role": "user", "content": items[0].text}],
        "max_tokens": 32,
        "temperature": 0.0,
        "chat_template_kwargs": {"enable_thinking": False},
    }
    gpqa = next(e.body for e in chats if e.body["messages"][0]["content"] == items[1].text)
    assert gpqa["thinking"] is True  # GPQA as the profile asks it: thinking on
    look = v.evidence["quality_prompts"]["looks"][0]
    assert look["pairs"] == 8 and look["time_pairs"] == 8 and look["length_ratio"] == 1.0
    assert 0.9 < look["time_ratio"] < 1 / 0.9


@pytest.mark.parametrize("cheat", ["canned", "routed"])
async def test_a_server_that_detects_the_graders_items_fails(simulator, tmp_path, cheat):
    sim = await simulator(**HONEST, quality_detection=cheat)
    v, rep = await detection(sim.url, tmp_path)
    assert v.result is RuleResult.FAIL, v.why
    assert exit_code(rep) == EXIT_FAIL
    # the first look split, so a second, independent one (other paraphrases) was asked
    assert len(rep.paraphrases) == 32 and {a.look for a in rep.paraphrases} == {0, 1}
    assert len({a.text for a in rep.paraphrases if a.form == "paraphrase"}) == 16
    # the filler half passes: only the quality half names the cause
    assert v.why.startswith("quality prompts: served unlike their light paraphrases: ")
    looks = v.evidence["quality_prompts"]["looks"]
    if cheat == "canned":  # 4 tokens of 32, 20 times faster: shorter
        assert "output length" in v.why
        assert all(look["length_ratio"] == pytest.approx(4 / 32, abs=1e-3) for look in looks)
    else:  # 60 % as long, 1.5 times slower per token
        assert all(look["length_ratio"] == pytest.approx(19 / 32, abs=1e-3) for look in looks)
        assert "output length" in v.why
