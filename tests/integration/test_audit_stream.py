"""Rule stream_consistency against the simulator: a stream that is not the non-streamed
answer (another first token, other usage, a second end of sequence) fails; an honest
server, vLLM's usage accounting included, passes (docs/audit.md, "stream_consistency";
style rule 26)."""

from __future__ import annotations

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


async def streams(url: str, folder: Path) -> tuple[RuleVerdict, AuditReport]:
    o = AuditOverrides(ready_timeout_s=5.0, timeout_s=30.0, seed=7, rounds=2)
    rep = await measure_audit(
        from_profile(PROFILE, Target(folder=folder, url=url), o),
        provenance=Provenance(),
        folder=folder,
    )
    return next(v for v in rep.rules if v.rule == "stream_consistency"), rep


async def test_an_honest_stream_is_the_non_streamed_answer(simulator, tmp_path):
    # vLLM's accounting: an answer that stops counts its EOS in usage, streamed or not
    sim = await simulator(**HONEST, output_tokens=40, count_eos=True, tokens_per_chunk=3)
    v, rep = await streams(sim.url, tmp_path)
    assert v.result is RuleResult.PASS, v.why
    streamed = [p for p in rep.probes if p.stream]
    assert [p.label for p in streamed] == [
        "chat /v1/chat/completions (streamed)",
        "prompt /v1/completions (streamed)",
    ]
    assert all(p.output_tokens == 41 and p.finish_events == 1 for p in streamed)
    assert rep.probes[-1].first_text and len(rep.probes[-1].first_text.split()) == 3


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("first_token", "the first streamed text"),
        ("usage", "usage 66 streamed, 64 not streamed, for the same answer"),
        (
            "eos",
            "more than one end of sequence (2 finish events, 1 end-of-sequence tokens in "
            "the text, text after the finish)",
        ),
    ],
)
async def test_an_inconsistent_stream_fails(simulator, tmp_path, kind, why):
    sim = await simulator(**HONEST, stream_mismatch=kind)
    v, _ = await streams(sim.url, tmp_path)
    assert v.result is RuleResult.FAIL
    assert v.why.startswith("the stream is not the non-streamed answer: chat /v1/chat")
    assert why in v.why


async def test_a_nondeterministic_server_leaves_the_first_token_unjudged(simulator, tmp_path):
    sim = await simulator(**HONEST, nondeterministic=True)
    v, _ = await streams(sim.url, tmp_path)
    assert v.result is RuleResult.INCONCLUSIVE
    assert v.why.endswith("(the server was not shown deterministic at temperature 0)")


def test_the_command_fails_a_stream_with_another_first_token(sim_process, tmp_path):
    sim = sim_process(**HONEST, stream_mismatch="first_token")
    out = tmp_path / "run"
    code = main(["audit", "--url", sim.url, "--out", str(out), "--rounds", "2", "--quiet"])
    assert code == EXIT_FAIL
    saved = AuditReport.from_json((out / "audit.json").read_text())
    verdicts = {v.rule: v.result for v in saved.rules}
    assert verdicts["stream_consistency"] is RuleResult.FAIL
    assert verdicts["one_stack"] is RuleResult.PASS  # the non-streamed answers agree
