"""harness audit against the simulator: each rule shown failing a server that breaks it and
passing a well-behaved one (docs/audit.md; style rule 26)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.audit.config import AuditOverrides, from_profile
from harness.audit.core import exit_code, measure_audit
from harness.audit.report import AuditReport, RuleResult
from harness.errors import EXIT_FAIL, EXIT_OK
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.target import Target

pytestmark = pytest.mark.timeout(180)

PROFILE = load_profile("efficient-qwen")
# an honest server: 128 tokens at 1 ms each (far above the 26.7 ms floor), a prefix cache
HONEST: dict[str, Any] = {"ttft_ms": 5.0, "itl_ms": 1.0, "prefix_cache": True, "jitter_pct": 2}


async def audit(url: str, folder: Path, **opts: Any) -> AuditReport:
    o = AuditOverrides(ready_timeout_s=5.0, timeout_s=30.0, seed=7, **opts)
    cfg = from_profile(PROFILE, Target(folder=folder, url=url), o)
    return await measure_audit(cfg, provenance=Provenance(), folder=folder)


def results(rep: AuditReport) -> dict[str, RuleResult]:
    return {v.rule: v.result for v in rep.rules}


async def test_an_honest_server_with_a_prefix_cache_passes_every_rule(simulator, tmp_path):
    sim = await simulator(**HONEST)
    rep = await audit(sim.url, tmp_path)
    assert set(results(rep).values()) == {RuleResult.PASS}
    assert exit_code(rep) == EXIT_OK
    cached = next(v for v in rep.rules if v.rule == "cached_answers")
    assert "prefix cache" in cached.why  # the simulator's counters show hits: legal
    # 2 warm-ups + 5 rounds of 3, then one_stack's 9 probes and stream_consistency's 2
    # streams, every one on a new connection, counted by the server
    assert rep.requests == 28 and rep.counters["vllm:request_success_total"] == 28
    sent = [e for e in sim.log if e.method == "POST"]
    assert len(sent) == 28 and all(e.conn_request_index == 0 for e in sent)
    assert (tmp_path / "audit.json").is_file()


async def test_a_response_cache_fails_cached_answers_and_the_floor(simulator, tmp_path):
    sim = await simulator(**HONEST, cache_responses=True)
    rep = await audit(sim.url, tmp_path)
    got = results(rep)
    assert got["cached_answers"] is RuleResult.FAIL
    assert got["physically_possible"] is RuleResult.FAIL
    cached = next(v for v in rep.rules if v.rule == "cached_answers")
    # the repeated prompt reached the engine once (the first warm-up): 11 answers never did
    # (5 timed rounds, then 5 more for the second look: 32 requests); one_stack's repeated
    # probes come from the cache too, which splits their timing: a second set of 8, all
    # cached (4 of its 17 probes reached the engine, and the 2 streams, which it never caches)
    assert cached.why.startswith("response cache: the server's own counter counts 27 of the 51")
    assert exit_code(rep) == EXIT_FAIL


async def test_filler_detection_fails_only_benchmark_detection_after_a_second_look(
    simulator, tmp_path
):
    sim = await simulator(**HONEST, filler_speedup=1.5)
    rep = await audit(sim.url, tmp_path)
    got = results(rep)
    assert got == {
        "cached_answers": RuleResult.PASS,
        "benchmark_detection": RuleResult.FAIL,
        "physically_possible": RuleResult.PASS,
        "one_stack": RuleResult.PASS,
        "stream_consistency": RuleResult.PASS,
    }
    assert {s.phase for s in rep.samples} == {"warmup", "timed", "confirm"}
    assert rep.requests == 2 + 15 + 15 + 9 + 2


async def test_a_server_at_zero_itl_is_physically_impossible(simulator, tmp_path):
    sim = await simulator(ttft_ms=1.0, itl_ms=0.0)
    rep = await audit(sim.url, tmp_path, rounds=2)
    assert results(rep)["physically_possible"] is RuleResult.FAIL
    assert results(rep)["cached_answers"] is RuleResult.PASS


def test_the_command_exits_1_on_a_cheat_and_writes_audit_json(sim_process, tmp_path):
    sim = sim_process(**HONEST, cache_responses=True)
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "audit", "--url", sim.url, "--out", str(out),
         "--rounds", "2", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == EXIT_FAIL, proc.stderr
    shown = json.loads(proc.stdout)
    assert "samples" not in shown
    assert {v["rule"]: v["result"] for v in shown["rules"]}["cached_answers"] == "fail"
    # 2 + 2×2×3, then one_stack's 9 probes and 8 more (the cache's instant repeats split
    # them), and 2 streams
    assert AuditReport.from_json((out / "audit.json").read_text()).requests == 14 + 17 + 2


async def test_latency_names_a_response_cache_not_the_legal_prefix_cache(simulator):
    """Issue 37's case: an exact-response cache in front of ``--ttft-ms 40 --itl-ms 3`` was
    blamed on the prefix cache; the gap now says what the decode speed proves."""
    from harness.latency.analysis import build_report
    from harness.latency.runner import LatencyState, run_latency
    from harness.risk import FlagKind
    from harness.tokenizer import load_tokenizer
    from tests.fixtures.configs import latency_config

    sim = await simulator(ttft_ms=10.0, itl_ms=3.0, cache_responses=True)
    spec = PROFILE.require_latency()
    buckets = (spec.buckets[0].model_copy(update={"max_tokens": 32}),)
    cfg = latency_config(sim.url, buckets, runs=4, warmup=2, calibrate=False, mode="both")
    state = LatencyState()
    await run_latency(cfg, load_tokenizer(PROFILE.server.tokenizer), state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    (gap,) = rep.gaps
    assert gap.cause_kind == "response_cache"
    assert [f.kind for f in rep.flags if f.kind is FlagKind.RESPONSE_CACHE] == [
        FlagKind.RESPONSE_CACHE
    ]
