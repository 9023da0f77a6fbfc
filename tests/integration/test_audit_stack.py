"""Rule one_stack against the simulator: a second model stack on the latency grader's body
shape or on a route fails it, however it shows (other answers, or the same answers faster);
an honest server passes; a server that is not deterministic at temperature 0 leaves it
inconclusive, never failed (docs/audit.md, "one_stack"; style rule 26)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.audit.config import AuditOverrides, from_profile
from harness.audit.core import measure_audit
from harness.audit.report import AuditReport
from harness.cli import main
from harness.errors import EXIT_FAIL
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.rule_report import RuleResult, RuleVerdict
from harness.target import Target

pytestmark = pytest.mark.timeout(180)

PROFILE = load_profile("efficient-qwen")
HONEST: dict[str, Any] = {"ttft_ms": 5.0, "itl_ms": 1.0, "prefix_cache": True, "jitter_pct": 2}
GROUPS = {
    "chat /v1/chat/completions",
    "prompt /v1/completions",
    "chat /invocations",
    "prompt /invocations",
}


async def stack(url: str, folder: Path) -> tuple[RuleVerdict, AuditReport]:
    o = AuditOverrides(ready_timeout_s=5.0, timeout_s=30.0, seed=7, rounds=2)
    rep = await measure_audit(
        from_profile(PROFILE, Target(folder=folder, url=url), o),
        provenance=Provenance(),
        folder=folder,
    )
    return next(v for v in rep.rules if v.rule == "one_stack"), rep


async def test_an_honest_server_gives_one_answer_at_one_speed(simulator, tmp_path):
    sim = await simulator(**HONEST)
    v, rep = await stack(sim.url, tmp_path)
    assert v.result is RuleResult.PASS, v.why
    assert v.why.startswith("the same answer (64 tokens) through 4 routes and body shapes")
    # a warm-up, then each of the four ways of asking twice: one set, no second look (and
    # stream_consistency's two streams)
    asked = [p for p in rep.probes if not p.stream]
    assert len(asked) == 9 and {p.label for p in asked} == GROUPS
    assert {p.look for p in rep.probes} == {0}
    # the chat body and its templated prompt reached the engine as the same prompt
    chat, prompt = (
        next(e for e in sim.log if e.kind == kind and e.path == "/invocations" and e.body
             and ("long story" in str(e.body.get("messages"))
                  or e.body.get("prompt", "").startswith("<|im_start|>")))
        for kind in ("chat", "completion")
    )  # fmt: skip
    assert chat.prompt_tokens == prompt.prompt_tokens and chat.output_text == prompt.output_text


async def test_a_second_model_for_prompt_bodies_fails(simulator, tmp_path):
    sim = await simulator(**HONEST, second_stack=True)
    v, _ = await stack(sim.url, tmp_path)
    assert v.result is RuleResult.FAIL
    assert v.why.startswith(
        "the same prompt at temperature 0 gets another answer by route or body shape "
        "(a second model stack): chat /v1/chat/completions and prompt /v1/completions differ"
    )


async def test_a_second_model_behind_one_route_fails(simulator, tmp_path):
    sim = await simulator(**HONEST, route_divergence=True)
    v, _ = await stack(sim.url, tmp_path)
    assert v.result is RuleResult.FAIL
    assert "chat /v1/chat/completions and chat /invocations differ" in v.why


async def test_the_same_answers_faster_on_prompt_bodies_fail_after_a_second_look(
    simulator, tmp_path
):
    sim = await simulator(**HONEST, prompt_speedup=1.6)
    v, rep = await stack(sim.url, tmp_path)
    assert v.result is RuleResult.FAIL, v.why
    assert v.why.startswith("the same answer is served faster by route or body shape")
    assert "prompt /invocations at" in v.why
    assert {p.look for p in rep.probes} == {0, 1} and len(rep.probes) == 9 + 2 + 8


async def test_a_nondeterministic_server_is_inconclusive_never_failed(simulator, tmp_path):
    sim = await simulator(**HONEST, nondeterministic=True)
    v, _ = await stack(sim.url, tmp_path)
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert v.why.startswith("not deterministic at temperature 0, so different answers prove")


def test_the_command_fails_a_second_stack_and_writes_the_probes(sim_process, tmp_path, capsys):
    sim = sim_process(**HONEST, second_stack=True)
    out = tmp_path / "run"
    code = main(["audit", "--url", sim.url, "--out", str(out), "--rounds", "2", "--json"])
    assert code == EXIT_FAIL
    shown = json.loads(capsys.readouterr().out)
    assert {v["rule"]: v["result"] for v in shown["rules"]}["one_stack"] == "fail"
    saved = AuditReport.from_json((out / "audit.json").read_text())
    # the answers split in the first set: a second set (no warm-up, no streams) confirmed it;
    # the repeated prompt 3 times for one token (physically_possible); complete_outputs' one
    # answer ran to max_tokens (nothing to continue); the quality
    # items and their paraphrases: 16, and 16 more when a loaded machine split their timing
    n = len(saved.paraphrases)
    assert saved.requests == 2 + 2 * 3 + 3 + 1 + n + 9 + 2 + 8 and len(saved.probes) == 19
