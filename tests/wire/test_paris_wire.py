"""The Paris sweep on the wire: harness's official mode sends the grader's requests (same
bodies, same headers, nothing extra) and computes the same numbers from the same answers
(docs/throughput.md, "Official mode on the wire").

The grader side is tests/wire/grader_paris.py; both are given the same seeded draws.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.graders.paris import grader_prompts
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.target import Target
from harness.throughput.analysis import build_report
from harness.throughput.chat_count import chat_prompt_tokens, render_no_think
from harness.throughput.config import ThroughputConfig, ThroughputOverrides, from_profile
from harness.throughput.core import measure_throughput
from harness.throughput.grader_loop import grader_numbers
from harness.throughput.runner import ThroughputState, run_official_sweep
from harness.tokenizer import load_tokenizer
from tests.fixtures.recording import Recorded, RecordingServer, without_manifest_step
from tests.wire import grader_paris

pytestmark = pytest.mark.timeout(120)

PARIS = load_profile("gpumode-paris")
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-35B-A3B")
GTOK = grader_paris.HFLikeTokenizer()
POOL = [{"content": q.question, "answer": q.answer} for q in PARIS.require_throughput().spot_pool]
ANSWERS = {q["content"]: q["answer"] for q in POOL}
SEED, LEVELS, N, TOKENS, MAX_TOKENS = 7, (1, 4), 8, 32, 16


def answer(body: dict[str, Any]) -> str:
    """Deterministic: the right number for a spot check (once wrong), words of the prompt else."""
    content = body["messages"][0]["content"]
    if content in ANSWERS:
        return "41" if ANSWERS[content] == 56 else f"The answer is {ANSWERS[content]:,}."
    return " ".join(content.split()[:6]) or "x"


def paris_config(url: str, *, chart: bool = True) -> ThroughputConfig:
    """The small official sweep both sides run, built as the command builds it."""
    overrides = ThroughputOverrides(
        levels=",".join(map(str, LEVELS)),
        requests_per_level=N,
        prompt_tokens=TOKENS,
        max_tokens=MAX_TOKENS,
        seed=SEED,
        chart=chart,
    )
    return from_profile(PARIS, Target(folder=Path("."), url=url), overrides)


def key(r: Recorded) -> tuple[str, str, tuple[tuple[str, str], ...], bytes]:
    return (r.method, r.path, tuple(sorted(r.headers)), r.body)


def test_grader_prompt_procedure_is_reproduced_exactly():
    theirs = grader_paris.generate_prompts(GTOK, 12, 64, np.random.default_rng(3))
    ours = grader_prompts(TOK, 12, 64, np.random.default_rng(3), rounds=10)
    assert ours == theirs
    # the first k of a longer list are the same: harness builds only those it sends
    assert grader_prompts(TOK, 5, 64, np.random.default_rng(3)) == theirs[:5]


def test_chat_template_count_equals_the_reference_template():
    msgs = [{"role": "user", "content": "Héllo wörld, what is 7 * 8?"}]
    assert render_no_think(msgs) == GTOK.apply_chat_template(  # type: ignore[arg-type]
        msgs, tokenize=False, add_generation_prompt=True, enable_thinking=False
    )


def test_official_sweep_on_the_wire_equals_the_graders(recording_server, tmp_path):
    srv: RecordingServer = recording_server(text=answer, compress=True)
    prompts = grader_paris.generate_prompts(GTOK, 2 * N, TOKENS, np.random.default_rng(SEED))
    theirs = asyncio.run(
        grader_paris.run_benchmark(
            srv.url, prompts, LEVELS, N, MAX_TOKENS, GTOK, POOL, random.Random(SEED)
        )
    )
    their_reqs = list(srv.requests)
    srv.clear()

    cfg = paris_config(srv.url, chart=False)
    # the whole core, as `harness throughput` runs it: readiness included
    report = asyncio.run(
        measure_throughput(cfg, provenance=Provenance(), folder=tmp_path, tokenizer=TOK)
    )
    # the manifest's GETs come after the sweep, in a separate step (docs/manifest.md)
    our_reqs = without_manifest_step(list(srv.requests))

    # the same requests: bodies, headers and paths as multisets (order varies under
    # concurrency), per level in sequence; nothing extra: no GET /health before the sweep
    # (the grader's run_throughput.py sends none), no /v1/models, no probe, no /metrics
    assert len(our_reqs) == len(their_reqs) == len(LEVELS) * (2 + N)
    assert {(r.method, r.path) for r in our_reqs} == {("POST", "/v1/chat/completions")}
    assert Counter(map(key, our_reqs)) == Counter(map(key, their_reqs))
    assert {r.path for r in our_reqs} == {"/v1/chat/completions"}
    first = our_reqs[0]
    assert first.body.startswith(b'{"model": "Qwen/Qwen3.5-35B-A3B", "messages": [{"role": "user"')
    assert b"top_p" not in first.body
    assert first.header("Content-Type") == "application/json"

    # the same numbers from the same answers
    state = ThroughputState(
        rows=list(report.requests), levels_done=[lv.concurrency for lv in report.levels]
    )
    for g, lv in zip(theirs, report.levels, strict=True):
        assert lv.concurrency == g["concurrency"]
        assert (lv.n_ok, lv.n_failed) == (g["successful_requests"], g["failed_requests"])
        # the per-level token sums the grader's script reports, for the same bodies
        assert lv.prompt_tokens == g["total_prompt_tokens"]
        assert lv.output_tokens == g["total_completion_tokens"]
        assert sum(s.passed for s in lv.spot_checks) == g["spot_checks_passed"]
        # harness's arithmetic over the grader's wall gives the grader's tok/s exactly
        timed = [r for r in state.rows if r.level == lv.concurrency and r.phase == "timed"]
        same = grader_numbers(lv.concurrency, timed, g["wall"], cfg)
        assert same.tok_s == g["throughput_tok_per_sec"]
        assert same.token_discrepancy == g["token_discrepancy"] is True
        assert lv.tok_s == round(lv.tok_s or 0, 2)
    assert any(
        f.kind is FlagKind.USAGE_MISMATCH
        and "server usage differs from the verified counts" in f.text
        for f in report.flags
    )
    # the score: Σ weight × rounded tok/s, like eval/score.py
    assert report.score == pytest.approx(
        grader_paris.score(
            [
                {"concurrency": lv.concurrency, "throughput_tok_per_sec": lv.tok_s}
                for lv in report.levels
            ],
            accuracy=1.0,
        )
    )


def test_each_prompt_is_counted_by_the_graders_rule(recording_server):
    """Prompts of different lengths (the grader keeps a prompt that did not settle to its
    target): each is counted on its own chat-templated text, never as one constant, and the
    per-level sums equal what the grader's loop reports for the same bodies."""
    srv: RecordingServer = recording_server(text=answer)
    lengths = [30, 31, 33, 36, 29, 40, 32, 35]
    prompts = [
        grader_paris.generate_prompts(GTOK, 1, n, np.random.default_rng(100 + n))[0]
        for n in lengths
    ]
    theirs = asyncio.run(
        grader_paris.run_benchmark(
            srv.url, prompts, LEVELS, N, MAX_TOKENS, GTOK, POOL, random.Random(SEED)
        )
    )
    cfg = paris_config(srv.url)
    state = ThroughputState()
    asyncio.run(run_official_sweep(cfg, TOK, state, prompts=prompts, rng=random.Random(SEED)))
    report = build_report(cfg, state, Provenance(), complete=True)
    for g, lv in zip(theirs, report.levels, strict=True):
        assert lv.prompt_tokens == g["total_prompt_tokens"]
    counts = {r.prompt_tokens for r in state.rows if r.kind == "random"}
    assert len(counts) > 4  # one count per prompt text, not one per length setting
    assert all(
        grader_paris.count_prompt(GTOK, [{"role": "user", "content": p}])
        == chat_prompt_tokens(TOK, [{"role": "user", "content": p}])
        for p in prompts
    )


def test_check_fails_an_empty_content_like_check_server(recording_server, tmp_path):
    from harness.cli import main

    for text, code in (("", 1), ("Hello!", 0)):
        srv: RecordingServer = recording_server(text=text)
        argv = ["check", "--profile", "gpumode-paris", "--url", srv.url, "--only"]
        rc = main([*argv, "chat_completions", "--out", str(tmp_path / f"r{code}"), "--quiet"])
        assert rc == code
