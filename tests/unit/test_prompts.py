import pytest

from harness.profiles import load_profile
from harness.prompts import SEED_RANGE, exact_prompt, fresh_seed, official_filler, repeat_seed
from harness.tokenizer import load_tokenizer


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer("qwen:Qwen/Qwen3.5-4B")


def test_qwen_tokenizer_specials(qwen):
    assert qwen.vocab_size == 248_044 + 33
    assert qwen.encode("<|im_start|><|im_end|><think></think>") == [248045, 248046, 248068, 248069]


def test_official_filler_token_counts(qwen):
    spec = load_profile().require_latency()
    counts = [qwen.count(official_filler(spec, b.prompt_tokens)) for b in spec.buckets]
    assert counts == [61, 2041, 8191]


@pytest.mark.parametrize("n", [1, 64, 2048, 8192])
def test_exact_prompt_lengths(qwen, n):
    p = exact_prompt(qwen, n, seed=0, index=0)
    assert qwen.count(p) == n


def test_exact_prompts_are_unique_and_deterministic(qwen):
    a = [exact_prompt(qwen, 64, seed=1, index=i) for i in range(20)]
    assert len(set(a)) == 20
    assert a[3] == exact_prompt(qwen, 64, seed=1, index=3)
    assert a[3] != exact_prompt(qwen, 64, seed=2, index=3)
    # unique from the first word on: no shared prefix for a prefix cache
    assert len({qwen.encode(p)[:6].__repr__() for p in a}) == 20


def test_exact_prompts_share_no_leading_tokens_a_token_cache_could_reuse(qwen):
    """An engine that caches token by token (llama.cpp) reuses the longest shared first
    tokens of any earlier prompt: "Request {seed}-" gave every prompt of a run ~11 of them
    (19 % of the 64-token bucket on llama-server, flagged strict-cached)."""
    ids = [qwen.encode(exact_prompt(qwen, 64, seed=603267620, index=i)) for i in range(40)]

    def shared(a: list[int], b: list[int]) -> int:
        return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))

    longest = [max(shared(ids[i], ids[j]) for j in range(i)) for i in range(1, len(ids))]
    assert sum(longest) / len(longest) < 1.5 and max(longest) <= 3, longest


def test_fresh_seeds_differ_and_repeat_seeds_are_deterministic():
    drawn = {fresh_seed() for _ in range(20)}
    assert len(drawn) == 20 and all(0 <= s < SEED_RANGE for s in drawn)
    assert repeat_seed(7, 1) == 7  # --seed 7 alone replays repetition 1
    assert repeat_seed(7, 2) == repeat_seed(7, 2) != 7
    assert len({repeat_seed(7, i) for i in range(1, 11)}) == 10
    assert repeat_seed(7, 2) != repeat_seed(8, 2)
    assert 0 <= repeat_seed(7, 3) < SEED_RANGE
