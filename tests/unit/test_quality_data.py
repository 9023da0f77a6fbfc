"""Data folder layout, rendered task YAMLs, sample schemas and punkt_tab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.data.layout import (
    SAMPLES_DIR,
    TEMPLATES_DIR,
    render_tasks,
    require_data,
    source_for_task,
)
from harness.data.punkt import (
    PUNKT_FILES,
    default_nltk_data,
    ensure_punkt,
    has_punkt,
    punkt_dir,
    write_punkt_tab,
)
from harness.errors import ConfigError, DataMissingError


def test_missing_data_names_the_fetch_command_and_gating(tmp_path: Path):
    with pytest.raises(DataMissingError) as err:
        require_data(tmp_path, ["mmlu_pro", "gpqa_diamond_cot_zeroshot"])
    line = err.value.one_line()
    assert f"harness data fetch --out {tmp_path} --only gpqa,mmlu_pro" in line
    assert "HF_TOKEN" in line and "gated" in line
    assert err.value.exit_code == 2


def test_samples_are_complete():
    require_data(SAMPLES_DIR, ["mmlu_pro", "ifeval", "gpqa_diamond_cot_zeroshot", "gsm8k_cot"])


def test_unknown_task_has_no_source():
    with pytest.raises(ConfigError, match="no local data source for lm-eval task 'hellaswag'"):
        source_for_task("hellaswag")


def test_render_fills_both_folders(tmp_path: Path):
    out = render_tasks(SAMPLES_DIR, tmp_path / "t")
    text = (out / "ifeval" / "ifeval.yaml").read_text()
    assert "${" not in text
    assert f"train: {SAMPLES_DIR.resolve()}/ifeval/train.jsonl" in text
    assert "/lm_eval/tasks/ifeval/ifeval.yaml" in text
    assert len(list(out.rglob("*.yaml"))) == len(list(TEMPLATES_DIR.rglob("*.yaml")))


def _rows(rel: str) -> list[dict]:
    return [json.loads(line) for line in (SAMPLES_DIR / rel).read_text().splitlines()]


def test_sample_schemas():
    mmlu = _rows("mmlu_pro/test.jsonl") + _rows("mmlu_pro/validation.jsonl")
    for row in mmlu:
        assert set(row) == {
            "question_id",
            "question",
            "options",
            "answer",
            "answer_index",
            "cot_content",
            "category",
            "src",
        }
        assert (
            row["options"][row["answer_index"]]
            and "ABCDEFGHIJ"[row["answer_index"]] == row["answer"]
        )
    cats = {r["category"] for r in _rows("mmlu_pro/validation.jsonl")}
    assert len(cats) == 14  # five few-shot examples for each of the 14 subjects
    for row in _rows("ifeval/train.jsonl"):
        assert set(row) == {"key", "prompt", "instruction_id_list", "kwargs"}
        assert len(row["instruction_id_list"]) == len(row["kwargs"])
    for row in _rows("gpqa/gpqa_diamond.jsonl"):
        assert {
            "Question",
            "Correct Answer",
            "Incorrect Answer 1",
            "Incorrect Answer 2",
            "Incorrect Answer 3",
        } <= set(row)
    for row in _rows("gsm8k/test.jsonl"):
        assert "####" in row["answer"]


def test_punkt_tab_written_and_loaded_by_nltk(tmp_path: Path, monkeypatch):
    assert not has_punkt(tmp_path)
    ensure_punkt(tmp_path)  # derived offline from the installed package when missing
    folder = punkt_dir(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted(PUNKT_FILES)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert write_punkt_tab(tmp_path) == folder
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # deterministic
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])  # only our folder: no download
    tok = nltk.tokenize.PunktTokenizer("english")
    assert tok.tokenize("Dr. Smith came home at 5 p.m. today. He slept.") == [
        "Dr. Smith came home at 5 p.m. today.",
        "He slept.",
    ]


def test_default_nltk_data_never_inside_the_data_folder_unless_prepared(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "data"
    assert default_nltk_data(data) == tmp_path / "cache" / "nltk_data"
    assert default_nltk_data(SAMPLES_DIR) == tmp_path / "cache" / "nltk_data"
    write_punkt_tab(data / "nltk_data")  # what `harness data prepare --out data` does
    assert default_nltk_data(data) == data / "nltk_data"


def test_data_cli_prepare_and_samples(tmp_path: Path, monkeypatch, capsys):
    from harness.cli import main

    assert main(["data", "prepare", "--out", str(tmp_path), "--quiet"]) == 0
    assert has_punkt(tmp_path / "nltk_data")
    assert main(["data", "fetch", "--samples", "--out", str(tmp_path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert len(payload["files"]) == 5
    require_data(tmp_path, ["mmlu_pro", "ifeval", "gpqa_diamond_cot_zeroshot", "gsm8k_cot"])
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    # gated without a token: refused before any download, exit 2 with the gating note
    assert main(["data", "fetch", "--only", "gpqa", "--out", str(tmp_path / "x"), "--quiet"]) == 2
    assert "HF_TOKEN" in capsys.readouterr().err


def test_tasks_are_registered_by_exact_name():
    # a task that merely starts like a known one has no source: registration is exact
    assert source_for_task("gpqa_diamond_cot_zeroshot").family == "gpqa"
    for near in ("gpqa_diamond_cot_n_shot", "ifeval_extra", "mmlu_pro_plus"):
        with pytest.raises(ConfigError, match="Adding a benchmark"):
            source_for_task(near)
