"""The quality graders' prompts of the shipped items, byte for byte as lm-eval 0.4.11 builds
them (the texts below were printed by lm-eval's own tasks on tasks/samples), and their
paraphrases (harness/grader_items.py)."""

from __future__ import annotations

from harness.grader_items import GPQA_TAIL, gpqa_items, grader_items, ifeval_items


def test_ifeval_items_are_the_rows_prompts_unchanged():
    first = ifeval_items()[0]
    assert (first.key, first.thinking) == ("1001", False)
    assert first.text == (
        "Write a short note to a neighbour asking to borrow a ladder. Do not use any commas "
        "in your response."
    )


def test_gpqa_items_are_lm_evals_template_with_its_seeded_shuffle():
    items = gpqa_items()
    assert items[0].thinking and items[0].key == "recHarnessSample01"
    assert items[0].text == (
        "What is the correct answer to this question:A ball is dropped from rest and falls "
        "freely for 2 seconds near the Earth's surface. Ignoring air resistance, roughly how "
        "far does it fall?\nChoices:\n(A) About 40 m\n(B) About 5 m\n(C) About 10 m\n"
        "(D) About 20 m\nLet's think step by step: "
    )
    assert items[3].text.split("Choices:\n")[1] == (
        "(A) h p\n(B) p / h\n(C) h / p\n(D) h / p^2\nLet's think step by step: "
    )


def test_the_items_alternate_benchmarks():
    assert [i.benchmark for i in grader_items()[:4]] == ["ifeval", "gpqa_diamond"] * 2
    assert len(grader_items()) == 11


def test_a_paraphrase_changes_one_neutral_word_at_the_end_only():
    for item in grader_items():
        texts = {item.paraphrase(v) for v in range(3)}
        assert len(texts) == 3 and item.text not in texts
        for t in texts:
            # the question, its facts and options are the item's: a shared prefix
            head = item.text[: -len(GPQA_TAIL)] if item.benchmark == "gpqa_diamond" else item.text
            assert t.startswith(head)
            assert abs(len(t.split()) - len(item.text.split())) <= 3


def test_a_data_folder_with_the_graders_data_gives_its_items_else_the_samples(tmp_path):
    (tmp_path / "ifeval").mkdir()
    row = '{"key": 7, "prompt": "Write a haiku about rain.", "instruction_id_list": []}'
    (tmp_path / "ifeval" / "train.jsonl").write_text(row + "\n", encoding="utf-8")
    items = grader_items(tmp_path)
    assert [(i.key, i.text) for i in items[:1]] == [("7", "Write a haiku about rain.")]
    assert [i.key for i in items[1:]] == [i.key for i in gpqa_items()]  # no GPQA file there
