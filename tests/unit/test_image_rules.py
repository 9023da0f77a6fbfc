"""The package rules, judged on literal facts."""

from __future__ import annotations

from harness.image.rules import ImageFacts, failed, human_bytes, judge
from harness.profiles import PackageSpec

SPEC = PackageSpec(
    max_compressed_bytes=20_000_000_000,
    offline_env=["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1"],
    max_parameters=4_700_000_000,
)


def _facts(**over: object) -> ImageFacts:
    base: dict[str, object] = {
        "filename": "image.tar.gz",
        "compressed_bytes": 8_000_000_000,
        "tags": ["team/qwen:1"],
        "entrypoint": ["python", "-m", "vllm.entrypoints.openai.api_server"],
        "cmd": [],
        "exposed_ports": ["8080/tcp"],
        "env": ["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "PATH=/usr/bin"],
        "model_files": {
            "/opt/ml/model/config.json": 1500,
            "/opt/ml/model/model.safetensors": 7_900_000_000,
        },
        "parameters": 4_206_000_000,
    }
    base.update(over)
    return ImageFacts.model_validate(base)


def test_all_pass() -> None:
    results = judge(_facts(), SPEC)
    assert failed(results) == []
    assert [r.rule for r in results] == [
        "filename",
        "size",
        "tag",
        "entrypoint",
        "port",
        "offline_env",
        "model_config",
        "weights",
        "parameters",
    ]


def test_each_rule_fails_with_its_reason() -> None:
    cases = {
        "filename": _facts(filename="image.tgz"),
        "size": _facts(compressed_bytes=20_000_000_001),
        "entrypoint": _facts(entrypoint=[], cmd=[]),
        "port": _facts(exposed_ports=["8000/tcp"]),
        "offline_env": _facts(env=["HF_HUB_OFFLINE=1"]),
        "model_config": _facts(model_files={"/opt/ml/model/model.safetensors": 10}),
        "weights": _facts(model_files={"/opt/ml/model/config.json": 10}),
        "parameters": _facts(parameters=4_700_000_001),
    }
    for rule, facts in cases.items():
        assert [r.rule for r in failed(judge(facts, SPEC))] == [rule], rule
    detail = failed(judge(_facts(env=["HF_HUB_OFFLINE=1"]), SPEC))[0].detail
    assert "TRANSFORMERS_OFFLINE=1" in detail


def test_size_boundary_and_unknowns_warn() -> None:
    assert not failed(judge(_facts(compressed_bytes=20_000_000_000), SPEC))
    results = {r.rule: r.status for r in judge(_facts(parameters=None, tags=[]), SPEC)}
    assert results["parameters"] == "warn" and results["tag"] == "warn"
    no_limit = PackageSpec(max_parameters=None)
    assert "parameters" not in [r.rule for r in judge(_facts(), no_limit)]


def test_human_bytes() -> None:
    assert human_bytes(1000) == "1,000 bytes"
    assert human_bytes(20_000_000_000) == "20.00 GB"
