"""Random-token prompts of exact length, spot checks and their verification."""

import random

import pytest

from harness.prompts import random_token_prompt, regular_ids
from harness.throughput.prompts import prompt_list
from harness.throughput.spotcheck import make_spot_checks, numbers_in, spot_positions, verify
from harness.tokenizer import load_tokenizer


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer("qwen:Qwen/Qwen3.5-35B-A3B")


def test_regular_ids_exclude_every_special(qwen):
    ids = regular_ids(qwen)
    assert len(ids) == 248_044
    assert not set(ids) & qwen.special_ids
    assert max(ids) == 248_043


@pytest.mark.parametrize("n", [1, 17, 1024])
def test_random_prompts_are_exactly_n_tokens(qwen, n):
    text = random_token_prompt(qwen, n, random.Random(n), regular_ids(qwen))
    assert len(qwen.encode(text)) == n


def test_prompt_lists_are_seeded_and_streams_independent(qwen):
    a = prompt_list(qwen, 4, 64, seed=7, stream="shared")
    assert a == prompt_list(qwen, 4, 64, seed=7, stream="shared")
    assert len(set(a)) == 4
    assert a != prompt_list(qwen, 4, 64, seed=8, stream="shared")
    assert not set(a) & set(prompt_list(qwen, 4, 64, seed=7, stream="level-2"))
    assert all(len(qwen.encode(p)) == 64 for p in a)


def test_spot_checks_have_known_answers():
    checks = make_spot_checks(4, seed=3, stream="shared")
    assert checks == make_spot_checks(4, seed=3, stream="shared")
    for c in checks:
        a, b = (int(x) for x in numbers_in(c.question))
        assert c.answer in (a + b, a * b)
    assert "+" in checks[0].question and "times" in checks[1].question


@pytest.mark.parametrize(
    ("text", "expected", "ok"),
    [
        ("59", 59, True),
        ("The answer is 59.", 59, True),
        ("34 times 21 is 714", 714, True),
        ("1,024", 1024, True),
        ("It is 59.0", 59, True),
        ("5 9", 59, False),
        ("the of and", 59, False),
        ("", 59, False),
        ("<think>it is 59</think>\n\n60", 59, False),  # the think block does not count
        ("<think>hmm</think>\n\n59", 59, True),
    ],
)
def test_verify(text, expected, ok):
    assert verify(text, expected) is ok


def test_spot_positions_spread_inside_the_level():
    assert spot_positions(64, 2) == [22, 44]
    assert spot_positions(4, 2) == [2, 4]
    assert spot_positions(1, 1) == [1]
    assert spot_positions(8, 0) == []
    pos = spot_positions(10, 3)
    assert pos == sorted(set(pos)) and pos[0] > 0 and pos[-1] < 13
