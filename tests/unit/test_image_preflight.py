"""Image pre-flight: the platform rule and the size breakdown, from literal layers."""

from __future__ import annotations

import io

from harness.image.archive import ImageContents, summarise_layer
from harness.image.preflight import classify, platform_rule, size_breakdown
from tests.fixtures.podman import tar_of

MODEL = "/opt/ml/model"


def test_platform_rule_amd64_passes_arm64_fails_unknown_warns() -> None:
    ok = platform_rule({"os": "linux", "architecture": "amd64"})
    assert (ok.rule, ok.status, ok.detail) == ("platform", "pass", "linux/amd64")
    bad = platform_rule({"os": "linux", "architecture": "arm64", "variant": "v8"})
    assert bad.status == "fail"
    assert bad.detail.startswith("linux/arm64/v8: the grader runs linux/amd64")
    assert '"exec format error"' in bad.detail
    assert platform_rule({}).status == "warn"
    assert platform_rule({"os": "windows", "architecture": "amd64"}).status == "fail"


def test_classify_paths() -> None:
    assert classify("opt/ml/model/model-00001.safetensors", MODEL) == "model weights"
    assert classify("root/.cache/pip/http-v2/a", MODEL) == "pip cache"
    assert classify("root/.cache/huggingface/hub", MODEL) == "hf cache"
    assert classify("usr/local/cuda-12.4/bin", MODEL) == "cuda toolkit"
    assert classify("usr/local/cuda/bin", MODEL) == "cuda toolkit"
    assert classify("usr/local/cuda/lib64", MODEL) == "cuda libraries"
    assert classify("usr/lib/gcc/x86_64-linux-gnu/12", MODEL) == "compilers"
    assert classify("usr/local/lib/python3.11/site-packages", MODEL) == "python packages"
    assert classify("var/lib/apt/lists", MODEL) == "apt lists"
    assert classify("etc", MODEL) == "other"


def _layer(files: dict[str, bytes]):
    return summarise_layer(io.BytesIO(tar_of(files)), MODEL)


def test_size_breakdown_layers_paths_hints_and_deleted_files() -> None:
    base = _layer(
        {
            "/opt/ml/model/model.safetensors": b"w" * 5000,
            "/opt/ml/model/config.json": b"{}",
            "/root/.cache/pip/http-v2/x/blob": b"p" * 3000,
            "/tmp/build/big.o": b"o" * 1000,
        }
    )
    cleanup = _layer({"/tmp/build/.wh.big.o": b""})
    config = {
        "history": [
            {"created_by": "COPY model /opt/ml/model"},
            {"created_by": "ENV A=1", "empty_layer": True},
            {"created_by": "RUN rm /tmp/build/big.o"},
        ]
    }
    contents = ImageContents(
        tags=[], config=config, layer_count=2, model_files={}, layout="docker",
        layers=[base, cleanup],
    )  # fmt: skip
    sizes = size_breakdown(contents, MODEL)
    assert sizes.total_bytes == 9002
    assert [(lay.index, lay.bytes, lay.files) for lay in sizes.layers] == [(0, 9002, 4), (1, 0, 1)]
    assert sizes.layers[1].created_by == "RUN rm /tmp/build/big.o"
    assert [(p.path, p.bytes, p.kind) for p in sizes.largest_paths[:3]] == [
        ("/opt/ml/model", 5002, "model weights"),
        ("/root/.cache/pip/http-v2/x", 3000, "pip cache"),
        ("/tmp/build", 1000, "other"),
    ]
    assert sizes.largest_files[0].path == "/opt/ml/model/model.safetensors"
    assert sizes.by_kind == {"model weights": 5002, "pip cache": 3000, "other": 1000}
    assert sizes.hints == [
        "pip cache: 3,000 bytes — pip's download cache: `pip install --no-cache-dir`",
        "1,000 bytes in files deleted by a later layer still ship: "
        "delete in the same RUN step that created them",
    ]


def test_history_that_does_not_line_up_is_ignored() -> None:
    contents = ImageContents(
        tags=[], config={"history": [{"created_by": "a"}]}, layer_count=2, model_files={},
        layout="oci", layers=[_layer({"/a": b"1"}), _layer({"/b": b"22"})],
    )  # fmt: skip
    sizes = size_breakdown(contents, MODEL)
    assert [lay.created_by for lay in sizes.layers] == [None, None]
    assert sizes.hints == []
