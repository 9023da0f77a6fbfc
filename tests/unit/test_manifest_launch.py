"""What launchers record of the server they start: demo's command line, an image's inspection."""

from __future__ import annotations

from pathlib import Path

from harness.demo import demo_launch
from harness.image.launch_record import image_launch
from harness.manifest.launch import launched_process, serving_env
from harness.manifest.sources import from_launch, from_metrics_text
from harness.simulate.config import SimConfig
from harness.simulate.metrics import SimCounters, exposition


def test_serving_env_keeps_the_engines_variables_and_what_the_launcher_set() -> None:
    inherited = {
        "PATH": "/bin",
        "HOME": "/h",
        "VLLM_CPU_KVCACHE_SPACE": "8",
        "OMP_NUM_THREADS": "2",
    }
    got = serving_env({"VLLM_CPU_KVCACHE_SPACE": "2", "HF_HUB_OFFLINE": "1"}, inherited)
    assert got == {"HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "2", "VLLM_CPU_KVCACHE_SPACE": "2"}


def test_a_process_launch_names_its_interpreter_without_a_path() -> None:
    got = launched_process("harness tune", ["/opt/py/bin/python3", "-m", "vllm"], {}, {})
    assert got.argv == ("python3", "-m", "vllm") and got.env == {}


def test_the_demo_records_the_cpu_recipes_command_line_and_environment() -> None:
    got = from_launch(demo_launch(Path("/models/smol"), 51331))
    assert got["launch.by"] == "harness demo"
    argv = str(got["launch.argv"])
    assert " -m vllm.entrypoints.openai.api_server --model /models/smol " in argv
    assert "--port 51331" in argv and "--max-model-len 8704" in argv
    assert got["launch.env.VLLM_CPU_KVCACHE_SPACE"] == "2"


def test_an_image_launch_from_the_engines_inspection() -> None:
    container = {
        "Image": "sha256:1234",
        "Config": {
            "Entrypoint": ["python", "-m", "reference_server"],
            "Cmd": ["--recipe", "a10g-int4"],
            "Env": ["PATH=/usr/bin", "HF_TOKEN=hf_secret", "VLLM_USE_V1=1"],
        },
    }
    image = {"RepoDigests": ["team/img@sha256:ff"], "Os": "linux", "Architecture": "amd64"}
    got = from_launch(image_launch("team/img:1", container, image))
    assert got["launch.by"] == "harness gate --image"
    assert got["launch.argv"] == "python -m reference_server --recipe a10g-int4"
    assert got["launch.env.HF_TOKEN"] == "***" and got["launch.env.VLLM_USE_V1"] == "1"
    assert got["image.id"] == "sha256:1234" and got["image.digest"] == "team/img@sha256:ff"
    assert got["image.platform"] == "linux/amd64" and got["image.ref"] == "team/img:1"
    assert got["image.entrypoint"] == '["python", "-m", "reference_server"]'
    bare = from_launch(image_launch("x", {}, {}))
    assert bare == {
        "launch.by": "harness gate --image",
        "image.ref": "x",
        "image.entrypoint": "[]",
        "image.cmd": "[]",
    }


def test_the_simulators_config_info_carries_every_serving_knob() -> None:
    cfg = SimConfig(ttft_ms=12.5, prefix_cache=True, models=("a", "b"), log_file="/tmp/x.jsonl")
    got = from_metrics_text(exposition(SimCounters(), "a", cfg))
    knobs = {
        k.removeprefix("harness_sim_config."): v
        for k, v in got.items()
        if k.startswith("harness_sim_config.")
    }
    assert knobs["ttft_ms"] == 12.5 and knobs["prefix_cache"] is True and knobs["models"] == "a,b"
    assert knobs["output_tokens"] is None  # unset, like vLLM's "None"
    assert set(knobs) == set(SimConfig.model_fields) - {"log_file", "log_bodies", "log_limit"}
    # without a config (older callers): no config_info, the rest unchanged
    assert not any(
        k.startswith("harness_sim_config.")
        for k in from_metrics_text(exposition(SimCounters(), "a"))
    )
