"""The manifest of a ``vlm`` run, from a literal start record of the runner (pure parts)."""

from __future__ import annotations

import copy
import json
import shlex
import struct
from pathlib import Path
from typing import Any

from harness.manifest.canonical import config_id, is_secret, redact_args
from harness.manifest.diff import diff_settings
from harness.manifest.model import Launched, load_manifest
from harness.manifest.weights import folder_headers, weights_id
from harness.profiles import VlmSpec
from harness.vlm.config import VlmRunConfig
from harness.vlm.manifest import (
    build,
    record_import_manifest,
    record_run_manifest,
    run_knobs,
    runner_argv,
    settings_of,
)
from harness.vlm.run import command

# the start record the runner wrote on a CPU test machine (abbreviated)
START: dict[str, Any] = {
    "type": "start",
    "system_info": {
        "timestamp": "2026-11-26T13:38:43.250038",
        "python_version": "3.11.7",
        "python_full_version": "3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0]",
        "torch_version": "2.13.0+cpu",
        "cuda_available": False,
        "cuda_version": "N/A",
        "gpu_count": 0,
        "gpu_name": "N/A",
        "cpu_count_logical": 2,
        "cpu_freq_mhz": 2300.0,
        "memory_total_gb": 23.54,
        "memory_available_gb": 22.22,
        "cpu_model": "Intel(R) Xeon(R) Processor",
        "platform_system": "Linux",
        "platform_release": "6.18.44",
        "platform_machine": "x86_64",
        "ppu_info": {},
    },
    "samples": 3,
    "model_load_s": 9.55,
    "device": "cpu",
    "model_dtype": "torch.float32",
    "transformers_version": "5.19.0",
    "processor_class": "ImageOnlyQwen3VLProcessor",
    "attn_implementation": "sdpa",
    "wrapper_sha256": "490d7f8881dc821e",
    "runner_args": {
        "wrapper_dir": "/home/me/entry/vlm_wrapper",
        "model_path": "/data/models/Qwen3-VL-2B-Instruct",
        "dataset_path": "/data/textvqa",
        "max_samples": 5000,
        "warmup_samples": 1,
        "warmup_tokens": 10,
        "ttft_tokens": 1,
        "throughput_tokens": 8,
        "answer_tokens": 8,
        "pause_s": 0.005,
        "min_time_s": 0.001,
        "num_samples": None,
        "seed": None,
    },
    "processor_pixels": {
        "size": {"longest_edge": 262144, "shortest_edge": 4096},
        "min_pixels": None,
        "max_pixels": 1003520,
    },
}
KNOBS = START["runner_args"]
LAUNCHED = Launched(by="harness vlm run", argv=("python", "runner_script.py"))


def write_safetensors(path: Path, tensors: dict[str, Any]) -> None:
    header = json.dumps(tensors).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 16)


def settings(start: dict[str, Any] | None = START, knobs: dict[str, Any] = KNOBS) -> dict:
    return settings_of(start, knobs, model_name="Qwen3-VL-2B-Instruct", weights="abc")


def test_settings_say_what_ran() -> None:
    s = settings()
    assert s["model.path"] == "Qwen3-VL-2B-Instruct" and s["model.weights_id"] == "abc"
    assert s["model.dtype"] == "torch.float32" and s["model.device"] == "cpu"
    assert s["model.attn_implementation"] == "sdpa"
    assert s["wrapper.evaluation_wrapper_sha256"] == "490d7f8881dc821e"
    assert s["processor.max_pixels"] == 1003520 and "processor.min_pixels" not in s
    assert s["processor.size.longest_edge"] == 262144
    assert s["system.torch_version"] == "2.13.0+cpu" and s["system.gpu_name"] == "N/A"
    assert s["system.python_version"] == "3.11.7" and s["system.cuda_available"] is False
    assert s["system.transformers_version"] == "5.19.0"
    assert s["run.answer_tokens"] == 8 and s["run.pause_s"] == 0.005
    assert "run.seed" not in s and "run.num_samples" not in s  # unset: left out


def test_volatile_system_figures_are_left_out() -> None:
    s = settings()
    for key in ("timestamp", "memory_available_gb", "memory_total_gb", "cpu_freq_mhz"):
        assert f"system.{key}" not in s
    assert not any("load" in k for k in s)  # the model's load time is how fast, not what ran
    other = copy.deepcopy(START)
    other["system_info"].update(
        timestamp="2026-11-27T01:00:00", memory_available_gb=3.5, cpu_freq_mhz=3100.0
    )
    other["model_load_s"] = 20.0
    assert config_id(settings(other)) == config_id(settings())


def test_a_changed_knob_changes_the_id_and_the_diff_names_it() -> None:
    more = {**KNOBS, "answer_tokens": 16}
    a, b = settings(), settings(knobs=more)
    assert config_id(a) != config_id(b)
    assert [c.text for c in diff_settings(a, b)] == ["answer_tokens 8 → 16"]
    bf16 = {**START, "model_dtype": "torch.bfloat16"}
    assert [c.text for c in diff_settings(a, settings(bf16))] == [
        "dtype torch.float32 → torch.bfloat16"
    ]


def test_without_a_start_record_only_the_model_and_knobs() -> None:
    s = settings(None)
    assert s["model.path"] == "Qwen3-VL-2B-Instruct" and s["run.answer_tokens"] == 8
    assert not any(k.startswith(("system.", "processor.")) for k in s)
    m = build(None, KNOBS, model_name="m", headers={}, launched=LAUNCHED, system_source="x")
    assert m.sources["system_info"] == "no start record" and m.sources["model"] == "0 safetensors"
    assert "model.weights_id" not in m.settings and m.taken == "after"


def test_the_runner_command_line_names_no_machine_path() -> None:
    argv = [
        "/opt/venv/bin/python3",
        "/srv/harness/vlm/runner_script.py",
        "--wrapper-dir",
        "/home/me/entry/vlm_wrapper",
        "--model-path",
        "models/Qwen3-VL-2B",
        "--records",
        "/srv/reports/x/vlm-records.jsonl",
        "--answer-tokens",
        "8",
    ]
    assert runner_argv(["venv/bin/python", *argv[1:]])[0] == "python"
    assert runner_argv(argv) == [
        "python3",
        "runner_script.py",
        "--wrapper-dir",
        "vlm_wrapper",
        "--model-path",
        "Qwen3-VL-2B",
        "--records",
        "vlm-records.jsonl",
        "--answer-tokens",
        "8",
    ]


def test_token_counts_are_not_secrets() -> None:
    for name in ("--answer-tokens", "--max-num-batched-tokens", "TOKENIZERS_PARALLELISM"):
        assert not is_secret(name), name
    for name in ("HF_TOKEN", "--api-key", "OPENAI_APIKEY", "AWS_SECRET_ACCESS_KEY", "MY_PASSWORD"):
        assert is_secret(name), name
    assert redact_args(["--answer-tokens", "8", "--hf-token=x"]) == [
        "--answer-tokens",
        "8",
        "--hf-token=***",
    ]


def test_vlm_run_manifest_on_disk(tmp_path: Path) -> None:
    model = tmp_path / "models" / "Tiny-VL"
    model.mkdir(parents=True)
    write_safetensors(model / "model.safetensors", {"w": {"dtype": "F32", "shape": [2]}})
    cfg = VlmRunConfig(
        wrapper_dir=tmp_path / "vlm_wrapper",
        model_path=model,
        dataset_path=tmp_path / "textvqa",
        spec=VlmSpec(),
        python="/usr/bin/python3",
        num_samples=3,
        seed=None,
        non_official={"answer_tokens": 8},
    )
    run = tmp_path / "run"
    run.mkdir()
    m = record_run_manifest(cfg, [START], run)
    assert load_manifest(run) == m and m.taken == "after" and m.url is None
    assert m.settings["model.weights_id"] == weights_id(folder_headers(model))
    assert m.settings["model.path"] == "Tiny-VL" and m.settings["run.num_samples"] == 3
    assert m.settings["run.answer_tokens"] == 8  # the config's, not the start record's
    assert m.settings["launch.by"] == "harness vlm run"
    assert m.sources == {
        "system_info": "result.json",
        "model": "1 safetensors",
        "launch": "harness vlm run",
    }
    argv = shlex.split(str(m.settings["launch.argv"]))
    assert argv[:2] == ["python3", "runner_script.py"] and "--answer-tokens" in argv
    assert argv[argv.index("--answer-tokens") + 1] == "8"
    text = (run / "manifest.json").read_text()
    assert str(tmp_path) not in text and "/usr/bin" not in text
    assert not any("/" in a for a in argv)
    # the config's knobs are the runner's arguments: the same names and values
    ran = command(cfg, run / "vlm-records.jsonl")
    assert ran[ran.index("--answer-tokens") + 1] == "8"
    assert set(run_knobs(cfg)) >= {"answer_tokens", "throughput_tokens", "seed", "num_samples"}


def test_vlm_import_manifest(tmp_path: Path) -> None:
    model = tmp_path / "Qwen3-VL-2B-Instruct"
    model.mkdir()
    write_safetensors(model / "model.safetensors", {"w": {"dtype": "F16", "shape": [2]}})
    m = record_import_manifest(START, model, tmp_path)
    assert m.settings["launch.by"] == "harness vlm import" and "launch.argv" not in m.settings
    assert m.settings["model.path"] == "Qwen3-VL-2B-Instruct"
    assert m.settings["model.weights_id"] == weights_id(folder_headers(model))
    assert m.settings["run.answer_tokens"] == 8 and m.settings["system.cpu_count_logical"] == 2
    assert "/data" not in m.to_json() and "/home" not in m.to_json()
    without = record_import_manifest(START, None, tmp_path / "b")
    assert "model.weights_id" not in without.settings
    assert without.sources["model"] == "0 safetensors"
