"""Which data route quality takes: the HF datasets cache when it holds every dataset."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.data.benchmarks import DATASETS
from harness.data.hf_cache import cached_folder, choose_route, missing_from_cache, snake_name
from harness.errors import ConfigError
from harness.profiles import load_profile
from harness.quality.config import QualityOverrides, from_profile
from harness.target import Target


@pytest.mark.parametrize(
    ("name", "snake"), [("IFEval", "if_eval"), ("MMLU-Pro", "mmlu-pro"), ("gpqa", "gpqa")]
)
def test_snake_name_as_datasets_names_cache_folders(name: str, snake: str) -> None:
    # the real datasets naming is exercised by tests/wire/test_quality_data_routes.py
    assert snake_name(name) == snake


def _cache(root: Path, family: str) -> None:
    folder = cached_folder(DATASETS[family], root) / "0.0.0" / "h"
    folder.mkdir(parents=True)
    (folder / "dataset_info.json").write_text(json.dumps({"config_name": folder.parts[-3]}))


def test_route_follows_the_cache(tmp_path: Path) -> None:
    tasks = ["mmlu_pro", "ifeval", "gpqa_diamond_cot_zeroshot"]
    assert [s.family for s in missing_from_cache(tasks, tmp_path)] == ["mmlu_pro", "ifeval", "gpqa"]
    for family in ("mmlu_pro", "ifeval"):
        _cache(tmp_path, family)
    assert [s.family for s in missing_from_cache(tasks, tmp_path)] == ["gpqa"]
    _cache(tmp_path, "gpqa")
    assert missing_from_cache(tasks, tmp_path) == []
    assert cached_folder(DATASETS["gpqa"], tmp_path).parts[-2:] == (
        "Idavidrein___gpqa",
        "gpqa_diamond",
    )
    assert choose_route(tasks, "jsonl") == "jsonl" and choose_route(tasks, "hf-cache") == "hf-cache"


def test_unknown_route_is_a_config_error(tmp_path: Path) -> None:
    cfg = from_profile(
        load_profile(),
        Target(folder=tmp_path, url="http://x"),
        QualityOverrides(data_dir=tmp_path, nltk_data=tmp_path),
    )
    with pytest.raises(ConfigError, match="data route"):
        replace(cfg, data_route="s3")
