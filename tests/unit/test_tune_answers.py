"""simulate --accuracy: the answer key from the sample data, right with probability P."""

from __future__ import annotations

import json

from harness.data.layout import SAMPLES_DIR
from harness.simulate.answers import AnswerKey


def _mmlu_prompt() -> tuple[str, str]:
    row = json.loads((SAMPLES_DIR / "mmlu_pro" / "test.jsonl").read_text().splitlines()[0])
    opts = "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(row["options"]))
    shot = "Question:\nWhat is 1+1?\nOptions:\nA. 2\nB. 3\nAnswer: The answer is (A).\n\n"
    return f"{shot}Question:\n{row['question']}\nOptions:\n{opts}\nAnswer:", str(row["answer"])


def test_right_at_accuracy_one_wrong_at_zero() -> None:
    key = AnswerKey(SAMPLES_DIR)
    prompt, letter = _mmlu_prompt()
    assert key.reply(prompt, 1.0, seed=0) == f"The answer is ({letter})."
    wrong = key.reply(prompt, 0.0, seed=0)
    assert wrong is not None and wrong != f"The answer is ({letter})."


def test_unknown_prompt_gets_no_answer() -> None:
    assert AnswerKey(SAMPLES_DIR).reply("Write a poem about ladders.", 1.0, seed=0) is None


def test_seeded_per_question() -> None:
    key = AnswerKey(SAMPLES_DIR)
    prompt, _ = _mmlu_prompt()
    assert {key.reply(prompt, 0.5, seed=7) for _ in range(5)} == {key.reply(prompt, 0.5, seed=7)}
