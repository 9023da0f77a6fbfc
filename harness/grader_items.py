"""The quality graders' prompts of the items harness ships, and their light paraphrases.

What a server that recognises the graders' quality prompts would key on: the user message
the grader sends for an item. Two benchmarks send one user message per item, built here
exactly as lm-eval 0.4.11 builds it from a data folder's rows (the grader's data that
``harness data fetch`` wrote, else the sample rows harness ships in ``tasks/samples``, in
the datasets' own schema):

- IFEval: the row's ``prompt``, unchanged (lm-eval's ``doc_to_text: prompt``), thinking off;
- GPQA-Diamond (``gpqa_diamond_cot_zeroshot``): lm-eval's template over the row's
  question and its four answers, pre-processed and shuffled as lm-eval's ``process_docs``
  does after ``simple_evaluate`` seeds Python's ``random`` with 0 (the grader's seed),
  thinking on.

MMLU-Pro's body is lm-eval's own five-shot chat (a system message and ten turns before
the question): not built here (docs/audit.md, "What a rule cannot see").

A paraphrase changes one neutral word of the instruction and nothing of the question's
facts or options, and only at the prompt's end, so it shares the item's whole prefix (a
prefix cache serves both alike): IFEval gets a closing word of thanks, GPQA's "Let's think
step by step" another neutral wording. Tested byte for byte against lm-eval's own tasks
(tests/integration/test_grader_items.py).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harness.paths import REPO_ROOT

SAMPLES = REPO_ROOT / "tasks" / "samples"
Benchmark = Literal["ifeval", "gpqa_diamond"]

GPQA_HEAD = "What is the correct answer to this question:"
GPQA_TAIL = "Let's think step by step: "
# neutral words at the prompt's end: the task, its facts and its options unchanged
IFEVAL_ENDINGS = (" Thanks.", " Thank you.", " Thanks a lot.")
GPQA_TAILS = (
    "Let us think step by step: ",
    "Let's think it through step by step: ",
    "Let's now think step by step: ",
)
GRADER_SEED = 0  # the random seed simple_evaluate sets before GPQA shuffles its choices


@dataclass(frozen=True)
class GraderItem:
    """One quality item as its grader sends it: the user message and the thinking mode."""

    benchmark: Benchmark
    key: str  # IFEval's ``key``, GPQA's ``Record ID``
    text: str  # the one user message
    thinking: bool  # the Efficient Qwen graders': GPQA on, IFEval off (a profile may say otherwise)

    def paraphrase(self, variant: int) -> str:
        """The item with one neutral word of its instruction changed (``variant`` picks
        which; each differs from the original and from the others)."""
        if self.benchmark == "ifeval":
            return self.text + IFEVAL_ENDINGS[variant % len(IFEVAL_ENDINGS)]
        return self.text[: -len(GPQA_TAIL)] + GPQA_TAILS[variant % len(GPQA_TAILS)]


def _rows(path: Path) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _preprocess(text: object) -> str:
    """lm-eval's GPQA ``preprocess`` (tasks/gpqa/cot_zeroshot/utils.py)."""
    if text is None:
        return " "
    out = str(text).strip().replace(" [title]", ". ")
    out = re.sub("\\[.*?\\]", "", out)
    return out.replace("  ", " ")


# the benchmark files the items are built from, relative to a data folder
ITEM_FILES = ("ifeval/train.jsonl", "gpqa/gpqa_diamond.jsonl")


def sample_sources(data_dir: Path) -> list[str]:
    """The files of :data:`ITEM_FILES` read from harness's own sample data, not the grader's:
    not in ``data_dir`` (the shipped sample stands in), or the very sample file (``--data-dir
    tasks/samples``, ``harness data fetch --samples``). Said wherever the items are asked."""
    out: list[str] = []
    for rel in ITEM_FILES:
        read, sample = _source(data_dir, rel), SAMPLES / rel
        try:
            if read.resolve() == sample.resolve() or read.read_bytes() == sample.read_bytes():
                out.append(rel)
        except OSError:
            continue  # unreadable: the items' own read says so
    return out


def _source(data_dir: Path, rel: str) -> Path:
    """``data_dir``'s file (the grader's data, ``harness data fetch``), else the shipped
    sample's."""
    return data_dir / rel if (data_dir / rel).is_file() else SAMPLES / rel


def ifeval_items(data_dir: Path = SAMPLES) -> list[GraderItem]:
    rows = _rows(_source(data_dir, "ifeval/train.jsonl"))
    return [GraderItem("ifeval", str(r["key"]), str(r["prompt"]), False) for r in rows]


def gpqa_items(data_dir: Path = SAMPLES) -> list[GraderItem]:
    rng = random.Random(GRADER_SEED)
    out: list[GraderItem] = []
    for r in _rows(_source(data_dir, "gpqa/gpqa_diamond.jsonl")):
        choices = [_preprocess(r[f"Incorrect Answer {i}"]) for i in (1, 2, 3)]
        choices.append(_preprocess(r["Correct Answer"]))
        rng.shuffle(choices)
        lettered = "".join(f"({'ABCD'[i]}) {c}\n" for i, c in enumerate(choices))
        text = f"{GPQA_HEAD}{r['Question']}\nChoices:\n{lettered}{GPQA_TAIL}"
        out.append(GraderItem("gpqa_diamond", str(r["Record ID"]), text, True))
    return out


def grader_items(data_dir: Path = SAMPLES) -> list[GraderItem]:
    """The items of ``data_dir`` (each benchmark's file there, else the shipped sample's), in
    the datasets' order (the grader's ``--limit`` asks the first ones), alternating
    benchmarks (IFEval, GPQA, IFEval, …): the first ``k`` hold both for any ``k`` >= 2."""
    a, b = ifeval_items(data_dir), gpqa_items(data_dir)
    out: list[GraderItem] = []
    for i in range(max(len(a), len(b))):
        out += [x[i] for x in (a, b) if i < len(x)]
    return out
