"""harness submit's archive checks, before anything is sent: the wrong file, the profile's
size limit, a failing or stale package.json, truncated and altered archives, and the
``--skip-archive-check`` override; ``harness package --archive`` then submit.

Through the portal emulator + a strict S3 proxy + moto (tests/fixtures/s3.py), which must
see nothing for a refused archive. The upload itself is tests/integration/test_submit_upload.py's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.image.rules import RuleResult
from harness.submit.core import SubmitReport
from harness.submit.state import state_path
from tests.fixtures.gated import gate_archive
from tests.fixtures.s3 import PortalFactory
from tests.fixtures.submit_runs import REPO, gated_archive, sha, submit

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("submit_env")]


def test_refusals_before_any_network_call(portal_stack: PortalFactory, tmp_path: Path) -> None:
    stack = portal_stack()
    wrong = tmp_path / "image.tgz"
    wrong.write_bytes(b"x" * 100)
    assert submit(stack, wrong, tmp_path / "r1") == 2
    # over the profile's size limit (a profile copy with a 1000-byte limit)
    text = (REPO / "tasks/profiles/efficient-qwen.toml").read_text()
    small = tmp_path / "small.toml"
    small.write_text(
        text.replace("max_compressed_bytes = 20_000_000_000", "max_compressed_bytes = 1000")
    )
    archive = gated_archive(tmp_path, 20_000)
    assert submit(stack, archive, tmp_path / "r2", "--profile", str(small)) == 1
    # package.json beside it says FAIL
    from harness.image.core import PackageReport

    failing = PackageReport(
        archive="image.tar.gz", sha256=sha(archive.read_bytes()), compressed_bytes=20_000, layout="docker",
        layer_count=1, tags=[], entrypoint=[], cmd=[], exposed_ports=[], env_names=[], model_files={},
        parameters=None, rules=[RuleResult(rule="weights", status="fail", detail="no weight files")], passed=False,
    )  # fmt: skip
    failing.save(archive.parent)
    assert submit(stack, archive, tmp_path / "r3") == 1
    assert stack.portal.state.calls == []
    assert stack.proxy.log == []


def test_package_then_submit(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """`harness package --archive` writes package.json beside the file; submit trusts it."""
    import gzip
    import io
    import tarfile

    from tests.fixtures.podman import PROGRAM_STUB, safetensors_bytes, tar_of

    layer = tar_of(
        {
            "/bin/serve": PROGRAM_STUB,
            "/opt/ml/model/config.json": b"{}",
            "/opt/ml/model/model.safetensors": safetensors_bytes({"w": [8, 8]}),
        }
    )
    config = {
        "config": {
            "Env": ["HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "HF_DATASETS_OFFLINE=1"],
            "ExposedPorts": {"8080/tcp": {}},
            "Entrypoint": ["/bin/serve"],
        }
    }
    manifest = [{"Config": "c.json", "RepoTags": ["team/x:1"], "Layers": ["l/layer.tar"]}]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in {
            "l/layer.tar": layer,
            "c.json": json.dumps(config).encode(),
            "manifest.json": json.dumps(manifest).encode(),
        }.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    folder = tmp_path / "pkg"
    folder.mkdir()
    archive = folder / "image.tar.gz"
    archive.write_bytes(gzip.compress(buf.getvalue()))
    assert main(["package", "--archive", str(archive), "--out", str(folder), "--quiet"]) == 0
    gate_archive(archive, tmp_path / "gates")
    stack = portal_stack(single_max_bytes=10_000_000)
    assert submit(stack, archive, tmp_path / "run", "--quiet") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.package_report == "passed" and report.warnings == []


def _package(archive: Path) -> None:
    """`harness package --archive`: package.json beside the archive, with its sha256."""
    assert (
        main(["package", "--archive", str(archive), "--out", str(archive.parent), "--quiet"]) == 0
    )


def test_broken_archives_are_refused_before_register(
    portal_stack: PortalFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Truncated, or same size with changed bytes, with or without package.json beside it:
    refused before /register; the portal and S3 see nothing; no run folder is left."""
    stack = portal_stack(single_max_bytes=100_000, part_size=64 * 1024)
    good = gated_archive(tmp_path, 300_000, seed=3)
    data = good.read_bytes()
    cases: dict[str, tuple[bytes, bool, str]] = {
        # name: (file bytes, package.json of the good file beside it, what the refusal says)
        "truncated": (data[:200_000], False, "the file is truncated"),
        "truncated, package.json": (data[:200_000], True, "the file is truncated"),
        # a flipped bit in the deflate data: gzip's CRC-32 catches it
        "flipped, package.json": (
            data[:150_000] + bytes([data[150_000] ^ 1]) + data[150_001:],
            True,
            "CRC-32 mismatch",
        ),
        # the gzip header's MTIME changed: still a sound archive, but not the packaged file
        "header changed, package.json": (
            data[:4] + b"\x01\x02\x03\x04" + data[8:],
            True,
            "not the file package.json describes",
        ),
    }
    reports = tmp_path / "reports"
    for i, (name, (content, beside, says)) in enumerate(cases.items()):
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        if beside:
            (folder / "image.tar.gz").write_bytes(data)
            _package(folder / "image.tar.gz")
        archive = folder / "image.tar.gz"
        archive.write_bytes(content)
        assert len(content) == len(data) or name.startswith("truncated")
        capsys.readouterr()
        out = reports / f"run{i}"
        assert submit(stack, archive, out) == 1, name
        err = capsys.readouterr().err
        assert says in err and "nothing was sent" in err, (name, err)
        assert len(err.strip().splitlines()) == 1, err
        assert not out.exists(), f"{name}: a run folder was left behind"
        assert not state_path(archive).exists()
    assert stack.portal.state.calls == []
    assert stack.proxy.log == []
    # the good archive, beside its package.json, still submits
    _package(good)
    assert submit(stack, good, tmp_path / "ok") == 0
    report = SubmitReport.load(tmp_path / "ok")
    assert report.package_report == "passed" and report.archive_check == "passed"
    assert report.archive_layout == "docker" and report.submission_id
    assert report.s3_key is not None
    assert sha(stack.object_bytes(report.s3_key)) == sha(data)


def test_skip_archive_check_is_recorded(portal_stack: PortalFactory, tmp_path: Path) -> None:
    """The override uploads what it is given, and says so in submit.json."""
    stack = portal_stack(single_max_bytes=10_000_000)
    folder = tmp_path / "pkg"
    folder.mkdir()
    archive = folder / "image.tar.gz"
    archive.write_bytes(os.urandom(50_000))  # not an image at all
    assert submit(stack, archive, tmp_path / "refused") == 1
    assert stack.portal.state.calls == []
    # not inspected, no image id: no gate verdict can name it, so --ungated-ok too
    assert submit(stack, archive, tmp_path / "ungated", "--skip-archive-check") == 1
    assert stack.portal.state.calls == []
    assert submit(stack, archive, tmp_path / "run", "--skip-archive-check", "--ungated-ok") == 0
    report = SubmitReport.load(tmp_path / "run")
    assert report.archive_check == "skipped" and report.archive_layout is None
    assert report.gated == "ungated_ok" and report.image_id is None
    assert any("--skip-archive-check" in w for w in report.warnings)
    assert report.submission_id
