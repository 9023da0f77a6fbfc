"""Where benchmark data lives on disk, and the lm-eval task YAMLs that read it.

A data folder holds JSON Lines files, one per dataset split, in each dataset's
own schema (docs/quality.md)::

    mmlu_pro/test.jsonl  mmlu_pro/validation.jsonl  ifeval/train.jsonl
    gpqa/gpqa_diamond.jsonl  gsm8k/test.jsonl  nltk_data/tokenizers/punkt_tab/english/

``tasks/lm_eval/`` holds lm-eval task YAMLs that include lm-eval's own task
unchanged and only swap the data source; :func:`render_tasks` fills in the two
folders so lm-eval (or its CLI) can load them with ``include_path``.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from harness.data.benchmarks import GATED_NOTE, DatasetSource, task_data
from harness.errors import DataMissingError

# the data folder's default is a foundation's (the audit reads the graders' items there too)
from harness.paths import DATA_DIR_ENV as DATA_DIR_ENV
from harness.paths import default_data_dir as default_data_dir

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
TEMPLATES_DIR = REPO_ROOT / "tasks" / "lm_eval"
SAMPLES_DIR = REPO_ROOT / "tasks" / "samples"


def nltk_dir(data_dir: Path) -> Path:
    return data_dir / "nltk_data"


def lm_eval_tasks_dir() -> Path:
    import lm_eval

    return Path(lm_eval.__file__).resolve().parent / "tasks"


def source_for_task(task: str) -> DatasetSource:
    """The dataset of lm-eval task ``task`` (its exact name: harness.data.benchmarks)."""
    return task_data(task).source


def missing_files(data_dir: Path, tasks: list[str]) -> list[tuple[DatasetSource, Path]]:
    out: list[tuple[DatasetSource, Path]] = []
    for task in tasks:
        src = source_for_task(task)
        for rel in src.files.values():
            path = data_dir / rel
            if not path.is_file() and (src, path) not in out:
                out.append((src, path))
    return out


def require_data(data_dir: Path, tasks: list[str]) -> None:
    """Raise before any request when a benchmark's files are not in ``data_dir``."""
    missing = missing_files(data_dir, tasks)
    if not missing:
        return
    families = sorted({src.family for src, _ in missing})
    names = ", ".join(str(p) for _, p in missing)
    hint = f"run: harness data fetch --out {data_dir} --only {','.join(families)}"
    if any(src.gated for src, _ in missing):
        hint += f" ({GATED_NOTE})"
    hint += (
        f"; offline: harness data fetch --samples --out {data_dir} (the small sample sets,"
        " not the grader's)"
    )
    raise DataMissingError(f"benchmark data missing: {names}", hint=hint)


def render_tasks(data_dir: Path, out_dir: Path) -> Path:
    """Fill the ``tasks/lm_eval`` templates for ``data_dir`` into ``out_dir``; return it."""
    values = {"LM_EVAL_TASKS": str(lm_eval_tasks_dir()), "DATA_DIR": str(data_dir.resolve())}
    for template in sorted(TEMPLATES_DIR.rglob("*.yaml")):
        target = out_dir / template.relative_to(TEMPLATES_DIR)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = Template(template.read_text(encoding="utf-8")).substitute(values)
        target.write_text(text, encoding="utf-8")
    return out_dir
