"""The Paris grader's per-level arithmetic and request plan, over literal data."""

from __future__ import annotations

import random
from pathlib import Path

from harness.profiles import load_profile
from harness.target import Target
from harness.throughput.config import ThroughputOverrides, from_profile
from harness.throughput.grader_loop import grader_body, grader_numbers, timed_plan
from harness.throughput.report import RequestRow
from harness.throughput.spotcheck import SpotCheck, grader_passes, level_spots

CFG = from_profile(
    load_profile("gpumode-paris"), Target(folder=Path("."), url="http://x"), ThroughputOverrides()
)
SPOTS = [SpotCheck("q1", 1), SpotCheck("q2", 2)]


def test_two_of_64_positions_are_replaced_not_added():
    plan = timed_plan([f"p{i}" for i in range(128)], 64, SPOTS, random.Random(0))
    positions = sorted(random.Random(0).sample(range(64), 2))
    assert len(plan) == 64
    assert [i for i, (_, s) in enumerate(plan) if s] == positions
    assert [t for t, s in plan if s is None] == [f"p{i}" for i in range(62)]


def test_level_spots_walk_the_shuffled_pool_two_at_a_time():
    pool = [SpotCheck(f"q{i}", i) for i in range(8)]
    assert [s.answer for s in level_spots(pool, 0, 2)] == [0, 1]
    assert [s.answer for s in level_spots(pool, 3, 2)] == [6, 7]
    assert [s.answer for s in level_spots(pool, 4, 2)] == [0, 1]


def test_grader_passes_reads_any_unsigned_number_within_tolerance():
    assert grader_passes("The answer is 1,000.", 1000, 0.01)
    assert grader_passes("-56", 56, 0.01) and grader_passes("12.", 12, 0.01)
    assert not grader_passes("fifty-six", 56, 0.01) and not grader_passes("56.5", 56, 0.01)


def row(ok: bool, vp: int, vc: int, rp: int, rc: int) -> RequestRow:
    return RequestRow(
        level=1,
        phase="timed",
        index=0,
        kind="random",
        ok=ok,
        prompt_tokens=vp,
        output_tokens=vc if ok else None,
        server_prompt_tokens=rp,
        server_output_tokens=rc,
    )


def test_grader_numbers_round_and_flag_like_the_grader():
    rows = [
        row(True, 1037, 500, 1037, 500),
        row(True, 1038, 300, 1038, 300),
        row(False, 1036, 0, 0, 0),
    ]
    n = grader_numbers(1, rows, 3.0, CFG)
    assert (n.verified_prompt, n.verified_completion, n.n_ok, n.n_failed) == (2075, 800, 2, 1)
    assert n.tok_s == round(2875 / 3.0, 2) == 958.33
    assert n.token_discrepancy is False
    # completion reported 10 % low: above max(5 %, 10 tokens)
    skew = [row(True, 1037, 500, 1037, 450), row(True, 1038, 300, 1038, 270)]
    assert grader_numbers(1, skew, 1.0, CFG).token_discrepancy is True
    # 10 tokens off on 100 is within max(5 %, 10): not flagged
    small = [row(True, 100, 100, 100, 90)]
    assert grader_numbers(1, small, 1.0, CFG).token_discrepancy is False
    assert grader_numbers(1, [row(False, 1, 0, 0, 0)], 1.0, CFG).tok_s == 0.0


def test_grader_body_has_no_top_p_and_two_temperatures():
    assert grader_body(CFG, "m", "hi", spot=False) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 1024,
        "temperature": 1.0,
    }
    assert grader_body(CFG, "m", "What is 7 * 8?", spot=True)["temperature"] == 0.0
