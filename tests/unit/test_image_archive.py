"""Archive inspection on synthetic docker-archive and OCI layouts (no engine needed)."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.image.archive import (
    FileEntry,
    LayerSummary,
    inspect_archive,
    merge_layers,
    safetensors_parameters,
)
from harness.image.compress import ZlibSink
from tests.fixtures.podman import safetensors_bytes, tar_of

CONFIG = {
    "config": {
        "Env": ["PATH=/bin", "HF_HUB_OFFLINE=1"],
        "ExposedPorts": {"8080/tcp": {}},
        "Entrypoint": ["/bin/serve"],
    }
}


def _outer(members: dict[str, bytes], path: Path, *, gz: bool = True) -> Path:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    path.write_bytes(gzip.compress(raw, 1) if gz else raw)
    return path


def test_safetensors_parameters_literal() -> None:
    header = json.dumps(
        {
            "__metadata__": {"a": "b"},
            "w": {"dtype": "BF16", "shape": [3, 4], "data_offsets": [0, 24]},
            "b": {"dtype": "F32", "shape": [5], "data_offsets": [24, 44]},
            "s": {"dtype": "F32", "shape": [], "data_offsets": [44, 48]},
        }
    )
    assert safetensors_parameters(header.encode()) == 12 + 5 + 1


def test_merge_layers_whiteouts_and_opaque() -> None:
    base = LayerSummary(
        files={
            "opt/ml/model/a.safetensors": FileEntry(10),
            "opt/ml/model/sub/x.bin": FileEntry(5),
            "opt/ml/model/config.json": FileEntry(2),
        }
    )
    delete_a = LayerSummary(whiteouts=["opt/ml/model/a.safetensors"])
    opaque = LayerSummary(
        opaque_dirs=["opt/ml/model/sub"], files={"opt/ml/model/sub/y.bin": FileEntry(7)}
    )
    merged = merge_layers([base, delete_a, opaque])
    assert sorted(merged) == ["/opt/ml/model/config.json", "/opt/ml/model/sub/y.bin"]
    assert merge_layers([]) == {}


def test_docker_layout_manifest_last(tmp_path: Path) -> None:
    st = safetensors_bytes({"w": [100, 10]})
    layer1 = tar_of(
        {
            "/opt/ml/model/config.json": b"{}",
            "/opt/ml/model/model.safetensors": st,
            "/bin/serve": b"x",
        }
    )
    layer2 = tar_of({"/opt/ml/model/.wh.extra.bin": b""})
    members = {
        "aaa/layer.tar": layer1,
        "bbb/layer.tar": layer2,
        "cfg.json": json.dumps(CONFIG).encode(),
        "manifest.json": json.dumps(
            [
                {
                    "Config": "cfg.json",
                    "RepoTags": ["team/img:1"],
                    "Layers": ["aaa/layer.tar", "bbb/layer.tar"],
                }
            ]
        ).encode(),
    }
    contents = inspect_archive(_outer(members, tmp_path / "image.tar.gz"))
    assert (
        contents.layout == "docker"
        and contents.tags == ["team/img:1"]
        and contents.layer_count == 2
    )
    assert contents.model_files["/opt/ml/model/model.safetensors"].parameters == 1000
    assert "/bin/serve" not in contents.model_files
    assert contents.config["config"]["Entrypoint"] == ["/bin/serve"]


def test_parent_whiteouts_hide_the_model_folder() -> None:
    from harness.image.archive import summarise_layer

    base = summarise_layer(
        io.BytesIO(tar_of({"opt/ml/model/config.json": b"{}", "opt/ml/model/w.bin": b"1"})),
        "/opt/ml/model",
    )
    gone = summarise_layer(io.BytesIO(tar_of({"opt/ml/.wh.model": b""})), "/opt/ml/model")
    opaque = summarise_layer(
        io.BytesIO(tar_of({"opt/.wh..wh..opq": b"", "opt/other": b"x"})), "/opt/ml/model"
    )
    assert gone.whiteouts == ["opt/ml/model"] and opaque.opaque_dirs == ["opt"]
    assert merge_layers([base, gone]) == {}
    assert merge_layers([base, opaque]) == {}
    assert sorted(merge_layers([base])) == ["/opt/ml/model/config.json", "/opt/ml/model/w.bin"]


def test_oci_layout_with_gzip_layers(tmp_path: Path) -> None:
    layer = gzip.compress(
        tar_of(
            {
                "opt/ml/model/config.json": b"{}",
                "opt/ml/model/w.safetensors": safetensors_bytes({"w": [7, 3]}),
            }
        )
    )
    config = json.dumps(CONFIG).encode()
    manifest = json.dumps(
        {"schemaVersion": 2, "config": {"digest": "sha256:c0"}, "layers": [{"digest": "sha256:l1"}]}
    ).encode()
    index = json.dumps(
        {
            "schemaVersion": 2,
            "manifests": [
                {"digest": "sha256:m0", "annotations": {"io.containerd.image.name": "team/img:2"}}
            ],
        }
    ).encode()
    members = {
        "blobs/sha256/l1": layer,
        "blobs/sha256/c0": config,
        "blobs/sha256/m0": manifest,
        "index.json": index,
        "oci-layout": b'{"imageLayoutVersion":"1.0.0"}',
    }
    contents = inspect_archive(_outer(members, tmp_path / "image.tar.gz", gz=False))
    assert contents.layout == "oci" and contents.tags == ["team/img:2"]
    assert contents.model_files["/opt/ml/model/w.safetensors"].parameters == 21


def test_not_an_image(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"neither manifest\.json nor index\.json"):
        inspect_archive(_outer({"hello.txt": b"hi"}, tmp_path / "image.tar.gz"))
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x1f\x8bnot gzip at all")
    with pytest.raises(UsageError, match="not a readable image archive"):
        inspect_archive(bad)


def test_zlib_sink_writes_multimember_gzip(tmp_path: Path) -> None:
    data = bytes(range(256)) * 70_000  # ~18 MB: three 8 MiB blocks
    sink = ZlibSink(tmp_path / "x.gz", level=1, threads=2)
    for i in range(0, len(data), 1_000_000):
        sink.write(data[i : i + 1_000_000])
    size, digest = sink.close()
    raw = (tmp_path / "x.gz").read_bytes()
    assert size == len(raw) and gzip.decompress(raw) == data
    import hashlib

    assert digest == hashlib.sha256(raw).hexdigest()
    empty = ZlibSink(tmp_path / "e.gz", level=1, threads=1)
    empty.close()
    assert gzip.decompress((tmp_path / "e.gz").read_bytes()) == b""
