"""``--accuracy P``: answer the local benchmark data's multiple-choice questions right with
probability P (seeded per question), so a fast simulator can fail a quality gate.

The answer key is read from the data folder (MMLU-Pro ``mmlu_pro/*.jsonl``: ``options``
and ``answer_index``; GPQA ``gpqa/*.jsonl``: ``Question`` and ``Correct Answer``). A
prompt's question is the known question that appears last in it (after MMLU-Pro's
few-shot examples); its lettered options are read from the prompt (lm-eval shuffles
GPQA's), and the reply is ``The answer is (X).``, what both benchmarks' filters extract.
A prompt with no known question (IFEval, latency prompts) gets the usual generated text.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

_OPTION = re.compile(r"^\s*\(?([A-J])[\).:]\s+(.+?)\s*$", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _rows(path: Path) -> list[dict[str, object]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


class AnswerKey:
    """Question text → its correct option text, from a benchmark data folder."""

    def __init__(self, data_dir: Path) -> None:
        self.key: dict[str, str] = {}
        for path in sorted((data_dir / "mmlu_pro").glob("*.jsonl")):
            for row in _rows(path):
                options, idx = row.get("options"), row.get("answer_index")
                if isinstance(options, list) and isinstance(idx, int) and 0 <= idx < len(options):
                    self.key[_norm(str(row["question"]))] = _norm(str(options[idx]))
        for path in sorted((data_dir / "gpqa").glob("*.jsonl")):
            for row in _rows(path):
                if "Question" in row and "Correct Answer" in row:
                    self.key[_norm(str(row["Question"]))] = _norm(str(row["Correct Answer"]))

    def question_in(self, prompt: str) -> tuple[str, str] | None:
        """The known question asked last in ``prompt`` and the prompt's text after it."""
        text = _norm(prompt)
        best, where = None, -1
        for q in self.key:
            at = text.rfind(q)
            if at > where:
                best, where = q, at
        if best is None:
            return None
        # the options are read from the original prompt (its lines) after the question
        raw_at = prompt.rfind(best[: min(len(best), 40)])
        return best, prompt[raw_at:] if raw_at >= 0 else prompt

    def reply(self, prompt: str, accuracy: float, seed: int) -> str | None:
        """``The answer is (X).``: right with probability ``accuracy`` (one seeded draw per
        question, whatever the order requests arrive in); None for an unknown prompt."""
        found = self.question_in(prompt)
        if found is None:
            return None
        question, tail = found
        options = {letter: _norm(text) for letter, text in _OPTION.findall(tail)}
        right = [k for k, v in options.items() if v == self.key[question]]
        if not right:
            return None
        rng = random.Random(f"{seed}/{question}")
        if rng.random() < accuracy:
            return f"The answer is ({right[0]})."
        wrong = sorted(k for k in options if k != right[0])
        return f"The answer is ({rng.choice(wrong)})." if wrong else None
