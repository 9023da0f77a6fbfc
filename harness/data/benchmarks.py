"""The lm-eval tasks harness can feed, one record each, registered by their exact name.

A profile's ``[[quality.benchmarks]]`` entry names an lm-eval task (or group);
:func:`task_data` finds its record by that exact name, never by a prefix, and
the record says everything the code needs to know about it: the dataset and the
files its splits become in a data folder, whether IFEval's scorer needs NLTK
punkt, and how ``--decide`` weighs a document. docs/quality.md, "Adding a
benchmark", lists the other files a new benchmark needs (the profile entry, a
task YAML for local data, sample rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.errors import ConfigError

GATED_NOTE = (
    "GPQA is gated: accept its terms at huggingface.co/datasets/Idavidrein/gpqa "
    "and export HF_TOKEN before fetching"
)


@dataclass(frozen=True)
class DatasetSource:
    """One Hugging Face dataset and the files its splits become in a data folder."""

    family: str  # folder in tasks/lm_eval/, tasks/samples/ and in the data folder
    hf_path: str
    hf_config: str | None
    files: dict[str, str] = field(default_factory=dict)  # HF split -> path in the data folder
    gated: bool = False
    fetched_by_default: bool = True  # `harness data fetch` without --only


@dataclass(frozen=True)
class TaskData:
    """What harness knows about one lm-eval task (or group), by its exact name."""

    task: str
    source: DatasetSource
    needs_punkt: bool = False  # the scorer tokenises with NLTK punkt_tab (IFEval)
    # --decide: a document weighs len(doc[field]) in the score (IFEval: its instructions,
    # since inst_level_strict_acc is instructions right / instructions); None: 1 each
    weight_field: str | None = None


MMLU_PRO = DatasetSource(
    "mmlu_pro",
    "TIGER-Lab/MMLU-Pro",
    None,
    {"test": "mmlu_pro/test.jsonl", "validation": "mmlu_pro/validation.jsonl"},
)
IFEVAL = DatasetSource("ifeval", "google/IFEval", None, {"train": "ifeval/train.jsonl"})
GPQA = DatasetSource(
    "gpqa", "Idavidrein/gpqa", "gpqa_diamond", {"train": "gpqa/gpqa_diamond.jsonl"}, gated=True
)
GSM8K = DatasetSource(
    "gsm8k", "openai/gsm8k", "main", {"test": "gsm8k/test.jsonl"}, fetched_by_default=False
)

TASKS: dict[str, TaskData] = {
    t.task: t
    for t in (
        TaskData("mmlu_pro", MMLU_PRO),
        TaskData("ifeval", IFEVAL, needs_punkt=True, weight_field="instruction_id_list"),
        TaskData("gpqa_diamond_cot_zeroshot", GPQA),
        TaskData("gsm8k_cot", GSM8K),
    )
}

DATASETS: dict[str, DatasetSource] = {t.source.family: t.source for t in TASKS.values()}


def task_data(task: str) -> TaskData:
    """The record of lm-eval task ``task``, by its exact name."""
    try:
        return TASKS[task]
    except KeyError:
        raise ConfigError(
            f"no local data source for lm-eval task {task!r}",
            hint=f"tasks harness knows: {', '.join(TASKS)} (docs/quality.md, Adding a benchmark)",
        ) from None
