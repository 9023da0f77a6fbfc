"""harness audit under the GPU MODE Paris profile, against the simulator: the sweep's own
request (its random-token prompt, its chat body, its aiohttp client) repeated against its
controls; an honest sampling server passes every rule, an exact-response cache fails
(docs/audit.md, "Per profile: GPU MODE Paris"; style rule 26)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.audit.config import AuditOverrides, from_profile
from harness.audit.core import exit_code, measure_audit
from harness.audit.report import AuditReport
from harness.cli import main
from harness.errors import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from harness.gate.report import GateReport
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.rule_report import RuleResult
from harness.target import Target

pytestmark = pytest.mark.timeout(240)

PARIS = load_profile("gpumode-paris")
MODEL = PARIS.server.model
# an honest server serving the grader's model name: a sampler (its answers at temperature
# 1.0 differ), a prefix cache, jitter; 0.05 ms a token keeps 1024-token answers quick
HONEST: dict[str, Any] = {"models": [MODEL], "ttft_ms": 5.0, "itl_ms": 0.05,
                          "prefix_cache": True, "jitter_pct": 2, "log_bodies": True}  # fmt: skip


async def audit(url: str, folder: Path, **opts: Any) -> AuditReport:
    o = AuditOverrides(ready_timeout_s=5.0, timeout_s=30.0, seed=7, **opts)
    cfg = from_profile(PARIS, Target(folder=folder, url=url), o)
    return await measure_audit(cfg, provenance=Provenance(), folder=folder)


def results(rep: AuditReport) -> dict[str, RuleResult]:
    return {v.rule: v.result for v in rep.rules}


async def test_an_honest_sampling_server_passes_every_paris_rule(simulator, tmp_path):
    sim = await simulator(**HONEST)
    rep = await audit(sim.url, tmp_path)
    assert results(rep) == {
        "cached_answers": RuleResult.PASS,
        "benchmark_detection": RuleResult.PASS,
        "physically_possible": RuleResult.PASS,
    }
    assert exit_code(rep) == EXIT_OK
    cached = next(v for v in rep.rules if v.rule == "cached_answers")
    assert cached.why.startswith("every answer to the repeated prompt at temperature 1 differs")
    assert cached.evidence["sweep_answers"] == (
        "18 answers to the repeated prompt at temperature 1, 18 distinct"
    )
    # 2 warm-ups + 16 rounds of 3, all counted by the server; no probe phase, no continuation
    # 2 warm-ups, 16 rounds of 3, the repeated prompt 3 times for one token
    assert rep.requests == 53 and rep.counters["vllm:request_success_total"] == 53
    sent = [e for e in sim.log if e.method == "POST"]
    assert {e.path for e in sent} == {"/v1/chat/completions"}
    # the grader's body, key for key: model, one user message, max_tokens 1024, temperature
    # 1.0, no top_p (eval/throughput/run_throughput.py); the one-token requests (the
    # repeated prompt, physically_possible's decode time) differ in max_tokens only
    assert {tuple(e.body) for e in sent} == {("model", "messages", "max_tokens", "temperature")}
    assert {(e.body["model"], e.body["max_tokens"], e.body["temperature"]) for e in sent} == {
        (MODEL, 1024, 1.0), (MODEL, 1, 1.0)
    }  # fmt: skip
    assert [e.body["max_tokens"] for e in sent].count(1) == 3
    repeated = {s.prompt_tokens for s in rep.samples if s.role == "repeated"}
    prompts = [e.body["messages"][0]["content"] for e in sent]
    assert len(repeated) == 1 and len(set(prompts)) == 1 + 2 * 16  # one repeated, 32 controls
    # one session, as the grader keeps one for its sweep: connections are reused
    assert max(e.conn_request_index for e in sent) > 0
    assert all(s.output_tokens == (1 if s.role == "one_token" else 1024) for s in rep.samples)


async def test_a_response_cache_fails_cached_answers_on_counter_and_replayed_text(
    simulator, tmp_path
):
    sim = await simulator(**HONEST, cache_responses=True)
    rep = await audit(sim.url, tmp_path)
    assert results(rep)["cached_answers"] is RuleResult.FAIL
    assert exit_code(rep) == EXIT_FAIL
    cached = next(v for v in rep.rules if v.rule == "cached_answers")
    # the repeated prompt reached the engine once (the first warm-up), 33 more never did
    # (1 warm-up, 16 timed and 16 second-look rounds): the second set ran because the timed
    # rounds split
    assert cached.why.startswith("response cache: the server's own counter counts 66 of the 101")
    assert cached.evidence["sweep_answers"] == (
        "34 answers to the repeated prompt at temperature 1, 1 distinct"
    )


async def test_a_prompt_served_faster_on_its_second_sight_fails_benchmark_detection(
    simulator, tmp_path
):
    sim = await simulator(**HONEST, repeat_speedup=1.5)
    rep = await audit(sim.url, tmp_path)
    assert results(rep) == {
        "cached_answers": RuleResult.PASS,  # every answer generated: its decode only faster
        "benchmark_detection": RuleResult.FAIL,
        "physically_possible": RuleResult.PASS,
    }
    failed = next(v for v in rep.rules if v.rule == "benchmark_detection")
    assert failed.why.startswith(
        "the grader's prompt is served faster than a one-token-different prompt: sweep: the "
        "prompt costs"
    )
    assert {s.phase for s in rep.samples} == {"warmup", "timed", "confirm"}
    assert rep.requests == 2 + 48 + 48 + 3


def test_the_command_refuses_buckets_for_the_sweep(capsys):
    argv = ["audit", "--profile", "gpumode-paris", "--url", "http://127.0.0.1:9"]
    assert main([*argv, "--buckets", "short"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "audits the throughput sweep's request: it has no buckets" in err
    assert "Traceback" not in err


def test_the_gate_runs_the_paris_audit_and_a_cache_fails_it(sim_process, tmp_path):
    sim = sim_process(**HONEST, cache_responses=True)
    folder = tmp_path / "gate"
    argv = ["gate", "--url", sim.url, "--profile", "gpumode-paris", "--out", str(folder)]
    argv += ["--skip", "check", "--skip", "quality", "--quiet"]
    assert main(argv) == EXIT_FAIL
    gate = GateReport.load(folder)
    blocking = [r.text for r in gate.reasons if r.blocking]
    assert any(t.startswith("audit rule cached_answers failed: response cache") for t in blocking)
    shown = json.loads((folder / "audit.json").read_text())
    assert shown["endpoint"] == "/v1/chat/completions"
