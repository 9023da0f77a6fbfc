"""The audit's prompts (harness/audit/timed/controls.py): the controls have the filler's token
length, differ from it only where they should, and never repeat within a run."""

from __future__ import annotations

from harness.audit.timed.controls import round_prompts
from harness.profiles import load_profile
from harness.tokenizer import load_tokenizer

PROFILE = load_profile("efficient-qwen")
SENTENCE = PROFILE.require_latency().filler_sentence
TOK = load_tokenizer(PROFILE.server.tokenizer)


def test_each_round_has_the_filler_and_two_fresh_controls_of_its_length() -> None:
    seen: dict[str, set[str]] = {"repeated": set(), "near_filler": set(), "unique_head": set()}
    for index in range(32):  # the default's timed rounds and its second look
        # a long seed: the round's index must still make its prompts new
        prompts = round_prompts(TOK, SENTENCE, 6, seed=1047617372, index=index)
        by_role = {p.role: p for p in prompts}
        assert {p.tokens for p in prompts} == {61}
        filler = by_role["repeated"].text
        near = by_role["near_filler"].text
        assert filler == SENTENCE * 6
        # the near-filler keeps the filler's prefix up to its last sentence's last word
        assert near[: filler.rindex(" dog.")] == filler[: filler.rindex(" dog.")] != near
        assert by_role["unique_head"].text.endswith(filler[len(SENTENCE) :])
        for p in prompts:
            seen[p.role].add(p.text)
    assert len(seen["repeated"]) == 1
    assert len(seen["near_filler"]) == len(seen["unique_head"]) == 32


def test_the_order_rotates_so_no_prompt_is_always_first() -> None:
    firsts = {round_prompts(TOK, SENTENCE, 6, seed=1, index=i)[0].role for i in range(3)}
    assert firsts == {"repeated", "near_filler", "unique_head"}
