"""The model files' identity in an image archive: weights id, package.json, manifest.json."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

from harness.image.archive import inspect_archive, summarise_layer
from harness.image.headers import read_safetensors_header
from harness.image.model_id import model_identity, relative
from harness.image.package_manifest import package_manifest, package_settings
from harness.image.report import NOT_RECORDED, PackageReport
from harness.image.rules import RuleResult
from harness.image.views import model_line
from harness.manifest.canonical import config_id
from harness.manifest.model import Launched, Manifest
from harness.manifest.record import keep_launch
from harness.manifest.sources import from_launch
from harness.manifest.weights import folder_headers, header_sha256, weights_id
from tests.fixtures.podman import safetensors_bytes, tar_of
from tests.unit.test_image_archive import CONFIG, _outer

MODEL = "/opt/ml/model"


def _image(tmp_path: Path, name: str, layers: list[dict[str, bytes]]) -> Path:
    members: dict[str, bytes] = {f"l{i}/layer.tar": tar_of(files) for i, files in enumerate(layers)}
    members["cfg.json"] = json.dumps(CONFIG).encode()
    members["manifest.json"] = json.dumps(
        [{"Config": "cfg.json", "RepoTags": ["t/i:1"], "Layers": list(members)[:-1]}]
    ).encode()
    return _outer(members, tmp_path / name)


def test_header_reader_keeps_its_error_texts_and_gives_the_digest() -> None:
    st = safetensors_bytes({"w": [3, 4]})
    (length,) = struct.unpack("<Q", st[:8])
    params, error, sha = read_safetensors_header(io.BytesIO(st))
    assert (params, error) == (12, None) and sha == header_sha256(st[8 : 8 + length])
    assert read_safetensors_header(io.BytesIO(b"abc")) == (
        None,
        "shorter than a safetensors header",
        None,
    )
    huge = struct.pack("<Q", 200 * 1024 * 1024)
    assert read_safetensors_header(io.BytesIO(huge)) == (
        None,
        f"header length {200 * 1024 * 1024} is implausible",
        None,
    )
    assert read_safetensors_header(io.BytesIO(st[:20])) == (
        None,
        "truncated safetensors header",
        None,
    )
    bad = struct.pack("<Q", 4) + b"[1]x"
    params, error, sha = read_safetensors_header(io.BytesIO(bad))
    assert params is None and sha is None and error is not None
    assert error.startswith("unreadable safetensors header:")


def test_model_identity_is_over_paths_relative_to_the_model_folder() -> None:
    assert relative("/opt/ml/model/sub/a.safetensors", "/opt/ml/model/") == "sub/a.safetensors"
    headers = {
        "/opt/ml/model/a.safetensors": ("aa", None),
        "/opt/ml/model/sub/b.safetensors": ("bb", None),
        "/opt/ml/model/config.json": (None, None),  # not a safetensors file: not counted
    }
    ident = model_identity(headers, MODEL)
    assert ident.files == 2 and ident.note == ""
    assert ident.weights_id == weights_id({"a.safetensors": "aa", "sub/b.safetensors": "bb"})
    # the same files under another model folder: the same id
    moved = {p.replace(MODEL, "/models/q"): h for p, h in headers.items()}
    assert model_identity(moved, "/models/q").weights_id == ident.weights_id
    # one header changed: another id
    changed = {**headers, "/opt/ml/model/a.safetensors": ("a2", None)}
    assert model_identity(changed, MODEL).weights_id not in (None, ident.weights_id)


def test_no_id_without_safetensors_or_with_an_unreadable_header() -> None:
    none = model_identity({"/opt/ml/model/config.json": (None, None)}, MODEL + "/")
    assert none.weights_id is None and none.files == 0
    assert none.note == "no safetensors files under /opt/ml/model"
    bad = model_identity(
        {
            "/opt/ml/model/a.safetensors": ("aa", None),
            "/opt/ml/model/b.safetensors": (None, "truncated safetensors header"),
            "/opt/ml/model/c.safetensors": (None, "link"),
        },
        MODEL,
    )
    assert bad.weights_id is None and bad.files == 3
    assert bad.note == (
        "header unreadable: /opt/ml/model/b.safetensors: truncated safetensors header (and 1 more)"
    )


def test_archive_weights_id_after_whiteouts_equals_the_folder_on_disk(tmp_path: Path) -> None:
    a = safetensors_bytes({"w": [10, 4]})
    b = safetensors_bytes({"v": [2, 2]}, "F32")
    base = {"/opt/ml/model/a.safetensors": a, "/opt/ml/model/sub/b.safetensors": b}
    extra = {"/opt/ml/model/extra.safetensors": safetensors_bytes({"x": [1]})}
    deleted = {"/opt/ml/model/.wh.extra.safetensors": b""}
    one = inspect_archive(_image(tmp_path, "one.tar.gz", [base, extra, deleted]))
    two = inspect_archive(_image(tmp_path, "two.tar.gz", [base]))
    assert one.weights_id is not None and one.weights_id == two.weights_id
    assert len(one.weights_id) == 16 and one.weights_note == ""
    # the same files on disk (harness vlm's way) give the same id
    disk = tmp_path / "model"
    for path, data in base.items():
        dest = disk / relative(path, MODEL)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    assert weights_id(folder_headers(disk)) == one.weights_id
    # another header (a changed shape): another id
    other = {**base, "/opt/ml/model/a.safetensors": safetensors_bytes({"w": [10, 5]})}
    three = inspect_archive(_image(tmp_path, "three.tar.gz", [other]))
    assert three.weights_id not in (None, one.weights_id)
    # a cut header: no id, and the report says which file
    cut = {**base, "/opt/ml/model/a.safetensors": a[:12]}
    four = inspect_archive(_image(tmp_path, "four.tar.gz", [cut]))
    assert four.weights_id is None
    assert four.weights_note == (
        "header unreadable: /opt/ml/model/a.safetensors: truncated safetensors header"
    )
    # no weights at all
    five = inspect_archive(_image(tmp_path, "five.tar.gz", [{"/opt/ml/model/config.json": b"{}"}]))
    assert (
        five.weights_id is None and five.weights_note == "no safetensors files under /opt/ml/model"
    )


def test_summarise_layer_keeps_each_header_digest() -> None:
    st = safetensors_bytes({"w": [3]})
    layer = summarise_layer(io.BytesIO(tar_of({"/opt/ml/model/m.safetensors": st})), MODEL)
    (length,) = struct.unpack("<Q", st[:8])
    assert layer.files["opt/ml/model/m.safetensors"].header_sha256 == header_sha256(
        st[8 : 8 + length]
    )


def _report(**kw: object) -> PackageReport:
    base: dict[str, object] = {
        "archive": "image.tar.gz",
        "sha256": "ab" * 32,
        "compressed_bytes": 10,
        "layout": "docker",
        "layer_count": 1,
        "tags": ["t/i:1"],
        "entrypoint": ["/bin/serve"],
        "cmd": ["--port", "8080"],
        "exposed_ports": ["8080/tcp"],
        "env_names": ["PATH", "HF_TOKEN"],
        "model_files": {
            "/opt/ml/model/config.json": 2,
            "/opt/ml/model/a.safetensors": 100,
            "/opt/ml/model/b.safetensors": 100,
            "/opt/ml/model/c.safetensors": 100,
        },
        "parameters": 4_020_000_000,
        "weights_id": "3f0c9e1b6a2d4c77",
        "rules": [RuleResult(rule="size", status="pass", detail="ok")],
        "passed": True,
        "platform": "linux/amd64",
    }
    return PackageReport.model_validate({**base, **kw})


CONFIG_ENV = {"config": {"Env": ["PATH=/bin", "HF_HUB_OFFLINE=1", "HF_TOKEN=hf_secret"]}}


def test_the_console_line_names_files_parameters_and_the_id() -> None:
    assert model_line(_report()).lines == (
        "model files: 3 safetensors, 4.02 B parameters, weights id 3f0c9e1b6a2d4c77",
    )
    rep = _report(
        model_files={"/opt/ml/model/w.safetensors": 1},
        parameters=1000,
        weights_id=None,
        weights_note="header unreadable: /opt/ml/model/w.safetensors: truncated",
    )
    assert model_line(rep).lines == (
        "model files: 1 safetensors, 1,000 parameters, no weights id: header unreadable: "
        "/opt/ml/model/w.safetensors: truncated",
    )


def test_package_json_schema_1_reads_with_the_id_unknown() -> None:
    old = _report().model_dump(mode="json")
    del old["weights_id"], old["weights_note"]
    old["schema_version"] = 1
    rep = PackageReport.from_json(json.dumps(old))
    assert rep.schema_version == PackageReport.SCHEMA_VERSION == 2
    assert rep.weights_id is None and rep.weights_note == NOT_RECORDED
    assert json.loads(_report().to_json())["weights_id"] == "3f0c9e1b6a2d4c77"


def test_the_package_manifest_says_what_the_image_is() -> None:
    digest = "sha256:" + "c" * 64
    manifest = package_manifest(_report(), CONFIG_ENV, digest)
    assert manifest.settings == {
        "image.id": digest,
        "image.entrypoint": '["/bin/serve"]',
        "image.cmd": '["--port", "8080"]',
        "image.platform": "linux/amd64",
        "image.env.HF_HUB_OFFLINE": "1",
        "image.env.HF_TOKEN": "***",
        "image.env.PATH": "/bin",
        "model.weights_id": "3f0c9e1b6a2d4c77",
        "model.files": 3,
        "model.parameters": 4_020_000_000,
    }
    assert manifest.config_id == config_id(manifest.settings)
    assert manifest.sources == {"archive": "image.tar.gz", "model": "3 safetensors header(s)"}
    assert manifest.taken == "after" and manifest.url is None
    # it is a manifest like any other: it reads back
    assert Manifest.model_validate_json(manifest.to_json()) == manifest
    # another header, another config_id; no id: the key is absent, the source says why
    other = package_manifest(_report(weights_id="0" * 16), CONFIG_ENV, digest)
    assert other.config_id != manifest.config_id
    note = "no safetensors files under /opt/ml/model"
    none = package_manifest(_report(weights_id=None, weights_note=note), {}, None)
    assert "model.weights_id" not in none.settings and "image.id" not in none.settings
    assert none.sources["model"] == note
    assert package_settings(_report(), {}, None)["model.files"] == 3


def test_gate_image_launch_keeps_the_package_model_settings() -> None:
    """gate --image packages into its folder first; the launch manifest taken next and every
    later take keep ``model.*`` (and the image settings of the launch, not the archive's)."""
    package = package_manifest(_report(), CONFIG_ENV, "sha256:" + "c" * 64)
    launched = Launched(
        by="harness gate --image", argv=("/bin/serve",), image={"id": "sha256:" + "d" * 64}
    )
    settings = {"server.version": "1", **from_launch(launched)}
    launch = Manifest(config_id=config_id(settings), settings=settings, sources={"launch": "x"})
    merged = keep_launch(launch, package)
    assert merged.settings["model.weights_id"] == "3f0c9e1b6a2d4c77"
    assert merged.settings["image.id"] == "sha256:" + "d" * 64
    assert "image.env.PATH" not in merged.settings  # the launch's image section wins whole
    assert merged.sources["model"] == "3 safetensors header(s)"
    assert merged.config_id == config_id(merged.settings) != launch.config_id
    # a later step's take (no launch, no model) keeps both
    later = Manifest(config_id="x", settings={"server.version": "1"})
    again = keep_launch(later, merged)
    assert again.settings["model.weights_id"] == "3f0c9e1b6a2d4c77"
    assert again.settings["launch.by"] == "harness gate --image"
