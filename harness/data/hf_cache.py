"""The grader's data route: lm-eval's own task definitions reading the Hugging Face cache.

The grader runs with ``HF_HOME`` set and ``HF_DATASETS_OFFLINE=1``/``HF_HUB_OFFLINE=1``;
lm-eval's default task YAMLs call ``datasets.load_dataset(dataset_path,
dataset_name)``. Offline, ``datasets`` (5.x) does not read the hub snapshot
(``HF_HOME/hub/datasets--OWNER--NAME``): it raises before looking there and falls
back to its processed cache, ``HF_HOME/datasets/OWNER___snake_name/CONFIG/VERSION/HASH/``
(written when the dataset was once loaded online). So that folder is what
"the cache holds the dataset" means here.

When it holds every dataset a run needs, quality uses lm-eval's own tasks exactly
as the grader does (``route = "hf-cache"``); otherwise the JSON Lines data folder
and the YAMLs in ``tasks/lm_eval/`` (``"jsonl"``), which include lm-eval's tasks
unchanged and only swap the data source.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from harness.data.benchmarks import DatasetSource
from harness.data.layout import source_for_task

DataRoute = Literal["hf-cache", "jsonl"]


def datasets_cache_dir() -> Path:
    """Where ``datasets`` keeps processed datasets: ``HF_DATASETS_CACHE``, else ``HF_HOME/datasets``."""
    if os.environ.get("HF_DATASETS_CACHE"):
        return Path(os.environ["HF_DATASETS_CACHE"])
    home = os.environ.get("HF_HOME") or str(Path.home() / ".cache" / "huggingface")
    return Path(home) / "datasets"


def snake_name(name: str) -> str:
    """``datasets.naming.camelcase_to_snakecase``, as it names cache folders (IFEval -> if_eval)."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", name)
    return name.lower()


def cached_folder(src: DatasetSource, cache: Path) -> Path:
    """``OWNER___snake_name/CONFIG`` for one dataset, in ``cache``."""
    owner, _, name = src.hf_path.rpartition("/")
    root = cache / (f"{owner}___{snake_name(name)}" if owner else snake_name(name))
    return root / (src.hf_config or "default")


def in_cache(src: DatasetSource, cache: Path) -> bool:
    return any(cached_folder(src, cache).glob("*/*/dataset_info.json"))


def missing_from_cache(tasks: list[str], cache: Path | None = None) -> list[DatasetSource]:
    where = cache or datasets_cache_dir()
    out: list[DatasetSource] = []
    for task in tasks:
        src = source_for_task(task)
        if src not in out and not in_cache(src, where):
            out.append(src)
    return out


def choose_route(tasks: list[str], wanted: str = "auto") -> DataRoute:
    """``auto``: the HF cache when it holds every dataset of ``tasks``, else the data folder."""
    if wanted == "jsonl":
        return "jsonl"
    if wanted == "hf-cache" or not missing_from_cache(tasks):
        return "hf-cache"
    return "jsonl"
