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
from harness.audit.report import AuditReport
from harness.cli import main
from harness.errors import EXIT_FAIL, EXIT_OK
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.rule_report import RuleResult
from harness.target import Target

pytestmark = pytest.mark.timeout(180)

PROFILE = load_profile("efficient-qwen")
# an honest server: the model ends the short answer at 41 of 128 tokens, as the CPU
# reference server's does, and vLLM counts its EOS; 1 ms a token (above the 10 ms floor of
# 41 tokens), a prefix cache
HONEST: dict[str, Any] = {"ttft_ms": 5.0, "itl_ms": 1.0, "prefix_cache": True, "jitter_pct": 2,
                          "output_tokens": 41, "count_eos": True}  # fmt: skip


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
    # 2 warm-ups + 16 rounds of 3 with the repeated prompt 3 times for one token between
    # them (physically_possible), then the answer and its continuation (complete_outputs),
    # then benchmark detection's 8 quality items and their 8 paraphrases (16 more when a
    # loaded machine splits their 40 ms timings once), one_stack's 9 probes and
    # stream_consistency's 2 streams, every one through the grader's client on a new
    # connection, counted by the server
    n = 66 + len(rep.paraphrases)
    assert len(rep.paraphrases) in (16, 32)
    assert rep.requests == n and rep.counters["vllm:request_success_total"] == n
    sent = [e for e in sim.log if e.method == "POST"]
    assert len(sent) == n and all(e.conn_request_index == 0 for e in sent)
    # the one-token requests go after timed rounds 0, 7 and 15: one stall of a loaded
    # machine cannot slow all three (harness/audit/timed/possible.py one_token_after)
    roles = [s.role for s in rep.samples]
    assert [i for i, r in enumerate(roles) if r == "one_token"] == [
        5,
        2 + 3 * 8 + 1,
        2 + 3 * 16 + 2,
    ]
    (check,) = rep.continuations
    assert (check.answer_tokens, check.answer_finish) == (42, "stop")
    assert (check.continued_tokens, check.continued_finish, check.continued_text) == (
        1,
        "stop",
        "",
    )
    assert (tmp_path / "audit.json").is_file()


async def test_a_response_cache_fails_cached_answers_and_the_floor(simulator, tmp_path):
    sim = await simulator(**HONEST, cache_responses=True)
    rep = await audit(sim.url, tmp_path)
    got = results(rep)
    assert got["cached_answers"] is RuleResult.FAIL
    assert got["physically_possible"] is RuleResult.FAIL
    cached = next(v for v in rep.rules if v.rule == "cached_answers")
    # the repeated prompt reached the engine once (the first warm-up): the rest of the
    # warm-ups and rounds never did (16 timed rounds, then 16 more for the second look);
    # of the 3 one-token requests (another body) the first did; complete_outputs'
    # continuation is a new prompt; one_stack's repeated probes come from
    # the cache too (their timing splits: a second set of 8), its 2 streams never are; the 12
    # quality items and paraphrases are new bodies each (16, or 32 with a second look)
    n = len(rep.paraphrases)
    assert cached.why.startswith(
        f"response cache: the server's own counter counts {73 + n} of the {122 + n} requests "
        "answered"
    )
    assert results(rep)["complete_outputs"] is RuleResult.PASS  # the cache keeps whole answers
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
        "complete_outputs": RuleResult.PASS,
    }
    assert {s.phase for s in rep.samples} == {"warmup", "timed", "confirm"}
    assert rep.requests == 2 + 48 + 48 + 3 + 2 + len(rep.paraphrases) + 9 + 2


async def test_a_server_at_zero_itl_is_physically_impossible(simulator, tmp_path):
    sim = await simulator(ttft_ms=1.0, itl_ms=0.0)
    rep = await audit(sim.url, tmp_path, rounds=2)
    assert results(rep)["physically_possible"] is RuleResult.FAIL
    assert results(rep)["cached_answers"] is RuleResult.PASS


async def test_a_server_that_does_not_decode_fails_the_floor_whatever_its_ttft(simulator, tmp_path):
    """Issue 46: 40 ms to the first token and none after it, a prefix cache: the median is
    above the floor, its decode (the median less a one-token answer's time) is not."""
    sim = await simulator(ttft_ms=40.0, itl_ms=0.0, prefix_cache=True)
    rep = await audit(sim.url, tmp_path, rounds=2)
    floor = next(v for v in rep.rules if v.rule == "physically_possible")
    assert floor.result is RuleResult.FAIL, floor.why
    assert "below the floor 26.7 ms of the 127 after the first: no decode" in floor.why
    assert [s.role for s in rep.samples].count("one_token") == 3


async def test_a_near_tie_that_runs_on_passes_complete_outputs(simulator, tmp_path):
    """What llama.cpp did (issue 46), honestly: the model ends its answer at 41 tokens, but
    continued with it, it runs on 10 more; continued from inside it, it ends where it
    ended. The old rule failed it; the probes show the end stays in the text."""
    sim = await simulator(**HONEST, run_on=10)
    rep = await audit(sim.url, tmp_path, rounds=2)
    verdict = next(v for v in rep.rules if v.rule == "complete_outputs")
    assert verdict.result is RuleResult.PASS, verdict.why
    assert "ran on 10 tokens ('stop'), yet continued from inside it, it ends where" in verdict.why
    assert [(c.start, c.end) for c in rep.continuations] == [
        (41, 51), (2, 41), (5, 41), (8, 41), (10, 41), (20, 41), (31, 41)
    ]  # fmt: skip


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
    assert "samples" not in shown and "paraphrases" not in shown
    assert {v["rule"]: v["result"] for v in shown["rules"]}["cached_answers"] == "fail"
    # 2 + 2×2×3 + 3 one-token requests + complete_outputs' answer and continuation, the
    # quality items and their
    # paraphrases (each body new: none cached), then one_stack's 9 probes and 8 more (the
    # cache's instant repeats split them), and 2 streams
    saved = AuditReport.from_json((out / "audit.json").read_text())
    assert saved.requests == 19 + len(saved.paraphrases) + 17 + 2


def test_a_server_that_cuts_answers_fails_complete_outputs(sim_process, tmp_path):
    """complete_outputs both ways through the command (in-process): the model ends its
    answer at 41 tokens; a server that stops every answer at 20 fails, the same server
    without the cut passes."""
    cut = sim_process(**HONEST, stop_early_at=20)
    argv = ["audit", "--url", cut.url, "--rounds", "2", "--seed", "3", "--quiet"]
    assert main([*argv, "--out", str(tmp_path / "cut")]) == EXIT_FAIL
    rep = AuditReport.load(tmp_path / "cut")
    got = results(rep)  # (benchmark detection on 2 rounds of 25 ms requests: this test's noise)
    assert got["complete_outputs"] is RuleResult.FAIL
    assert got["cached_answers"] is got["physically_possible"] is RuleResult.PASS
    failed = next(v for v in rep.rules if v.rule == "complete_outputs")
    assert "short: the answer ended at 21 of 128 tokens ('stop')" in failed.why
    assert "each end moved with the start (after 5: +5, after 10: +10, after 15: +15" in failed.why
    assert failed.why.endswith("a cut at a fixed count")
    assert [(c.attempt, c.requests) for c in rep.continuations] == [
        (1, 2), (2, 1), (3, 1), (4, 1)
    ]  # fmt: skip
    assert rep.requests == len(rep.samples) + len(rep.paraphrases) + len(rep.probes) + 5
    honest = sim_process(**HONEST)
    argv = ["audit", "--url", honest.url, "--seed", "3", "--quiet"]  # the default rounds
    assert main([*argv, "--out", str(tmp_path / "honest")]) == EXIT_OK
    rep = AuditReport.load(tmp_path / "honest")
    assert results(rep)["complete_outputs"] is RuleResult.PASS


def test_answers_that_run_to_max_tokens_leave_complete_outputs_inconclusive(sim_process, tmp_path):
    sim = sim_process(ttft_ms=5.0, itl_ms=1.0)  # no natural end: every answer is 128 tokens
    argv = ["audit", "--url", sim.url, "--quiet", "--out", str(tmp_path)]
    assert main(argv) == EXIT_OK
    rep = AuditReport.load(tmp_path)
    verdict = next(v for v in rep.rules if v.rule == "complete_outputs")
    assert verdict.result is RuleResult.INCONCLUSIVE and verdict.by_design
    # the answer only: nothing to continue
    assert rep.requests == len(rep.samples) + len(rep.paraphrases) + len(rep.probes) + 1


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
