"""harness package against a private Podman service (Docker Engine API), FROM scratch images."""

from __future__ import annotations

import gzip
import hashlib
import json
import tarfile
import time
from pathlib import Path

import pytest

from harness.cli import main
from harness.image.archive import inspect_archive
from harness.image.core import PackageReport
from harness.image.engine import connect
from harness.manifest.canonical import config_id
from harness.manifest.model import load_manifest
from harness.manifest.weights import folder_headers, weights_id
from tests.fixtures.podman import (
    PROGRAM_STUB,
    PodmanService,
    build_image,
    model_files,
    safetensors_bytes,
)

pytestmark = [pytest.mark.podman, pytest.mark.timeout(300)]


def _package(
    podman: PodmanService, tmp_path: Path, image: str, *extra: str
) -> tuple[int, PackageReport]:
    out = tmp_path / "run"
    code = main(
        [
            "package",
            "--image",
            image,
            "--docker-host",
            podman.socket_url,
            "--out",
            str(out),
            "--quiet",
            *extra,
        ]
    )
    return code, PackageReport.load(out)


def test_good_image_passes(podman: PodmanService, tmp_path: Path) -> None:
    build_image(
        podman, "harness-test/good:1", {**model_files([1000, 64]), "/bin/serve": PROGRAM_STUB}
    )
    code, report = _package(podman, tmp_path, "harness-test/good:1")
    archive = tmp_path / "run" / "image.tar.gz"
    assert code == 0, [r for r in report.rules if r.status != "pass"]
    assert report.passed and report.archive == "image.tar.gz"
    assert report.sha256 == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert report.compressed_bytes == archive.stat().st_size
    assert report.parameters == 1000 * 64 + 64 * 8
    assert "/opt/ml/model/config.json" in report.model_files
    assert "8080/tcp" in report.exposed_ports
    assert any(t.endswith("harness-test/good:1") for t in report.tags)
    assert report.entrypoint == ["/bin/serve"]
    # The archive is a real gzip'd docker-archive: manifest.json names the tag.
    with tarfile.open(archive, "r:gz") as tar:
        member = tar.extractfile("manifest.json")
        assert member is not None
        manifest = json.load(member)
    assert any(t.endswith("harness-test/good:1") for t in manifest[0]["RepoTags"])
    assert not (tmp_path / "run" / "image.tar.gz.partial").exists()


def test_missing_weights_fails(podman: PodmanService, tmp_path: Path) -> None:
    build_image(podman, "harness-test/noweights:1", model_files(weights=False))
    code, report = _package(podman, tmp_path, "harness-test/noweights:1")
    assert code == 1
    assert [r.rule for r in report.failures()] == ["weights"]


def test_missing_port_fails(podman: PodmanService, tmp_path: Path) -> None:
    build_image(podman, "harness-test/noport:1", model_files(), expose=False)
    code, report = _package(podman, tmp_path, "harness-test/noport:1")
    assert code == 1
    assert [r.rule for r in report.failures()] == ["port"]


def test_over_size_limit_fails(podman: PodmanService, tmp_path: Path) -> None:
    build_image(podman, "harness-test/good:1", model_files([1000, 64]))
    code, report = _package(podman, tmp_path, "harness-test/good:1", "--max-bytes", "1000")
    assert code == 1
    assert [r.rule for r in report.failures()] == ["size"]
    assert "limit 1,000 bytes" in report.failures()[0].detail


def test_whiteout_deletes_weights_and_param_limit(podman: PodmanService, tmp_path: Path) -> None:
    # A later layer deletes the weights (RUN is unavailable FROM scratch, so a
    # second build adds a whiteout file by hand, as a layer would carry it).
    files = {**model_files([1000, 64]), "/opt/ml/model/.wh.model.safetensors": b""}
    build_image(podman, "harness-test/whiteout:1", files)
    code, report = _package(podman, tmp_path, "harness-test/whiteout:1", "--compressor", "zlib")
    assert code == 1
    assert "weights" in [r.rule for r in report.failures()]
    assert report.compressor is not None and report.compressor.startswith("zlib")
    # the zlib path writes concatenated gzip members: one valid gzip stream
    with gzip.open(tmp_path / "run" / "image.tar.gz") as fh:
        assert len(fh.read()) == report.tar_bytes


def test_inspect_existing_archive_and_engine_errors(podman: PodmanService, tmp_path: Path) -> None:
    build_image(podman, "harness-test/good:1", model_files([1000, 64]))
    _package(podman, tmp_path, "harness-test/good:1")
    archive = tmp_path / "run" / "image.tar.gz"
    contents = inspect_archive(archive)
    assert contents.layout == "docker" and contents.layer_count >= 1
    out2 = tmp_path / "again"
    assert main(["package", "--archive", str(archive), "--out", str(out2), "--quiet"]) == 0
    assert PackageReport.load(out2).sha256 == PackageReport.load(tmp_path / "run").sha256
    # unknown image -> usage error (2); unreachable engine -> 3
    assert (
        main(
            [
                "package",
                "--image",
                "nope/none:0",
                "--docker-host",
                podman.socket_url,
                "--out",
                str(tmp_path / "x"),
                "--quiet",
            ]
        )
        == 2
    )
    assert (
        main(
            [
                "package",
                "--image",
                "a:b",
                "--docker-host",
                f"unix://{tmp_path}/none.sock",
                "--out",
                str(tmp_path / "y"),
                "--quiet",
            ]
        )
        == 3
    )
    assert connect(podman.socket_url).ping()


def test_the_weights_id_names_the_model_files(
    podman: PodmanService, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28: two images with the same model files share a weights id (another tag, another
    env, a shard added then deleted by a whiteout), one with another header gets another;
    package.json and the folder's manifest.json carry it, and the console says it."""
    shard = safetensors_bytes({"extra.weight": [16, 8]})
    same = {
        **model_files([1000, 64]),
        "/opt/ml/model/sub/extra.safetensors": shard,
        "/opt/ml/model/gone.safetensors": shard,
    }
    build_image(podman, "harness-test/w-a:1", dict(list(same.items())[:-1]))
    build_image(
        podman,
        "harness-test/w-b:1",
        {**same, "/opt/ml/model/.wh.gone.safetensors": b""},
        env=["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_DATASETS_OFFLINE=1", "X=2"],
    )
    other = {**model_files([1000, 65]), "/opt/ml/model/sub/extra.safetensors": shard}
    build_image(podman, "harness-test/w-c:1", other)
    reports = []
    for tag in ("w-a", "w-b", "w-c"):
        code, report = _package(podman, tmp_path / tag, f"harness-test/{tag}:1")
        assert code == 0, report.failures()
        reports.append(report)
    a, b, c = reports
    assert a.weights_id is not None and len(a.weights_id) == 16 and a.weights_note == ""
    assert a.sha256 != b.sha256 and a.weights_id == b.weights_id
    assert c.weights_id is not None and c.weights_id != a.weights_id
    # the same files on disk give the same id (harness/manifest/weights.py)
    disk = tmp_path / "disk"
    (disk / "sub").mkdir(parents=True)
    (disk / "model.safetensors").write_bytes(same["/opt/ml/model/model.safetensors"])
    (disk / "sub" / "extra.safetensors").write_bytes(shard)
    assert weights_id(folder_headers(disk)) == a.weights_id
    # manifest.json beside package.json: what the image is
    manifest = load_manifest(tmp_path / "w-b" / "run")
    assert manifest is not None and manifest.taken == "after"
    assert manifest.settings["model.weights_id"] == a.weights_id
    assert manifest.settings["model.files"] == 2
    assert manifest.settings["model.parameters"] == b.parameters
    assert manifest.settings["image.entrypoint"] == '["/bin/serve"]'
    assert manifest.settings["image.env.X"] == "2"
    assert str(manifest.settings["image.id"]).startswith("sha256:")
    assert manifest.sources["archive"] == "image.tar.gz"
    assert manifest.config_id == config_id(manifest.settings)
    # the console line (inspecting the archive again, not quiet)
    capsys.readouterr()
    archive = tmp_path / "w-a" / "run" / "image.tar.gz"
    assert main(["package", "--archive", str(archive), "--out", str(tmp_path / "again")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"model files: 2 safetensors, 64,640 parameters, weights id {a.weights_id}" in out
    assert PackageReport.load(tmp_path / "again").weights_id == a.weights_id


BUSYBOX = "/bin/busybox"  # Debian busybox-static: statically linked, runs FROM scratch


def _busybox() -> bytes:
    if not Path(BUSYBOX).exists():
        pytest.fail("busybox-static is required for this test (apt-get install busybox-static)")
    return Path(BUSYBOX).read_bytes()


def _entrypoint_rule(report: PackageReport) -> tuple[str, str]:
    (rule,) = [r for r in report.rules if r.rule == "entrypoint_exists"]
    return rule.status, rule.detail


def test_entrypoint_must_exist_in_the_image(podman: PodmanService, tmp_path: Path) -> None:
    """`/serve` missing from a FROM-scratch image: package fails, naming it."""
    build_image(podman, "harness-test/noserve:1", model_files(), entrypoint=["/serve"])
    code, report = _package(podman, tmp_path / "a", "harness-test/noserve:1")
    assert code == 1
    assert [r.rule for r in report.failures()] == ["entrypoint_exists"]
    assert _entrypoint_rule(report)[1] == (
        "ENTRYPOINT runs /serve, but the image has no such program (/serve does not exist)"
    )
    # shell form is `/bin/sh -c …`: it needs /bin/sh, which a scratch image lacks
    busybox = {**model_files(), "/bin/busybox": _busybox()}
    shell_form = "ENTRYPOINT /bin/busybox httpd -f -p 8080"
    build_image(podman, "harness-test/shellform:1", busybox, extra=shell_form)
    code, report = _package(podman, tmp_path / "b", "harness-test/shellform:1")
    assert code == 1
    assert report.entrypoint == ["/bin/sh", "-c", "/bin/busybox httpd -f -p 8080"]
    assert _entrypoint_rule(report) == (
        "fail",
        "ENTRYPOINT runs /bin/sh, but the image has no such program (/bin/sh does not exist)",
    )
    # /bin/sh as a symlink to busybox (made by a RUN step): found through the link
    link = 'RUN ["/bin/busybox", "ln", "-s", "busybox", "/bin/sh"]\n' + shell_form
    build_image(podman, "harness-test/shelllink:1", busybox, extra=link)
    code, report = _package(podman, tmp_path / "c", "harness-test/shelllink:1")
    assert code == 0, report.failures()
    assert _entrypoint_rule(report) == ("pass", "/bin/sh is in the image (→ /bin/busybox)")
    # CMD is the program when there is no ENTRYPOINT; a bare name is looked up in PATH
    cmd = 'ENTRYPOINT []\nENV PATH=/bin\nCMD ["busybox", "httpd", "-f", "-p", "8080"]'
    build_image(podman, "harness-test/cmd:1", busybox, extra=cmd)
    code, report = _package(podman, tmp_path / "d", "harness-test/cmd:1")
    assert code == 0, report.failures()
    assert _entrypoint_rule(report) == ("pass", "busybox is in the image (→ /bin/busybox)")
    # a later layer deletes the entrypoint (a whiteout): the program is gone
    gone = 'RUN ["/bin/busybox", "rm", "/bin/serve"]'
    files = {**busybox, "/bin/serve": PROGRAM_STUB}
    build_image(podman, "harness-test/whiteout-serve:1", files, extra=gone)
    code, report = _package(podman, tmp_path / "e", "harness-test/whiteout-serve:1")
    assert code == 1
    assert _entrypoint_rule(report) == (
        "fail",
        "ENTRYPOINT runs /bin/serve, but the image has no such program (/bin/serve does not exist)",
    )


def test_a_script_entrypoint_needs_its_interpreter(podman: PodmanService, tmp_path: Path) -> None:
    """Issue 27: FROM scratch, ENTRYPOINT a `#!/bin/sh` script, no /bin/sh in any layer."""
    script = b"#!/bin/sh\nexec /bin/busybox httpd -f -p 8080\n"
    build_image(podman, "harness-test/script-nosh:1", {**model_files(), "/bin/serve": script})
    code, report = _package(podman, tmp_path / "a", "harness-test/script-nosh:1")
    assert code == 1
    assert [r.rule for r in report.failures()] == ["entrypoint_exists"]
    assert _entrypoint_rule(report)[1] == (
        "ENTRYPOINT runs /bin/serve, but /bin/serve's interpreter /bin/sh (#!/bin/sh) "
        "is not in the image (/bin/sh does not exist)"
    )
    # the same script with busybox as /bin/sh (a RUN step's symlink): it can run
    busybox = {**model_files(), "/bin/busybox": _busybox(), "/bin/serve": script}
    link = 'RUN ["/bin/busybox", "ln", "-s", "busybox", "/bin/sh"]'
    build_image(podman, "harness-test/script-sh:1", busybox, extra=link)
    code, report = _package(podman, tmp_path / "b", "harness-test/script-sh:1")
    assert code == 0, report.failures()
    assert _entrypoint_rule(report) == (
        "pass",
        "/bin/serve is in the image, run by /bin/sh → /bin/busybox",
    )
    # `#!/usr/bin/env sh`: env found through a link, sh looked up on the image's PATH
    env_script = {**busybox, "/bin/serve": b"#!/usr/bin/env sh\nexec true\n"}
    links = (
        'RUN ["/bin/busybox", "mkdir", "-p", "/usr/bin"]\n'
        'RUN ["/bin/busybox", "ln", "-s", "/bin/busybox", "/usr/bin/env"]\n'
        "ENV PATH=/bin"
    )
    build_image(podman, "harness-test/script-env:1", env_script, extra=links)
    code, report = _package(podman, tmp_path / "c", "harness-test/script-env:1")
    assert _entrypoint_rule(report)[1] == (
        "ENTRYPOINT runs /bin/serve, but /bin/serve runs `env sh` (#!/usr/bin/env sh), "
        "and sh is not in the image (not in PATH (/bin))"
    )
    assert code == 1


@pytest.mark.parametrize("compressor", ["pigz", "zlib"])
def test_packaging_twice_gives_the_same_bytes(
    podman: PodmanService, tmp_path: Path, compressor: str
) -> None:
    """Issue 27: the same image packaged twice has one sha256 (no mtime in the gzip header;
    the engine's tar stream is byte-identical from one save to the next)."""
    build_image(podman, "harness-test/repro:1", model_files([1000, 64]))
    reports = []
    for i in range(2):
        if i:
            time.sleep(1.1)  # a gzip header's mtime would differ now
        argv = ["--compressor", compressor, "--threads", "2"]
        code, report = _package(podman, tmp_path / f"r{i}", "harness-test/repro:1", *argv)
        assert code == 0, report.failures()
        reports.append(report)
    first, second = reports
    assert first.sha256 == second.sha256
    assert first.tar_bytes == second.tar_bytes
    archive = (tmp_path / "r0" / "run" / "image.tar.gz").read_bytes()
    assert archive[4:8] == b"\0\0\0\0"  # MTIME 0
    assert not archive[3] & 0x08  # no FNAME
    assert hashlib.sha256(archive).hexdigest() == first.sha256
