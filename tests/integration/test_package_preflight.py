"""Pre-flight in `harness package` on real Podman images: platform rule and size breakdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.image.core import PackageReport
from tests.fixtures.podman import PROGRAM_STUB, PodmanService, build_image, model_files

pytestmark = [pytest.mark.podman, pytest.mark.timeout(300)]


def _package(podman: PodmanService, tmp_path: Path, image: str) -> tuple[int, PackageReport]:
    out = tmp_path / "run"
    argv = ["package", "--image", image, "--docker-host", podman.socket_url, "--out", str(out)]
    code = main([*argv, "--quiet"])
    return code, PackageReport.load(out)


def _build_arm64(podman: PodmanService, tmp_path: Path, tag: str) -> None:
    """FROM scratch with COPY steps only: builds for arm64 here without emulation."""
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    lines = ["FROM scratch"]
    for i, (path, data) in enumerate(model_files([100, 8]).items()):
        (ctx / f"f{i}").write_bytes(data)
        lines.append(f"COPY f{i} {path}")
    (ctx / "serve").write_bytes(PROGRAM_STUB)
    (ctx / "serve").chmod(0o755)
    lines += [
        "COPY serve /bin/serve",
        *(f"ENV {e}=1" for e in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")),
        "EXPOSE 8080",
        f"ENTRYPOINT {json.dumps(['/bin/serve'])}",
    ]
    (ctx / "Dockerfile").write_text("\n".join(lines) + "\n")
    done = podman.podman("build", "--platform", "linux/arm64", "-t", tag, str(ctx))
    assert done.returncode == 0, done.stderr


def test_arm64_image_fails_the_platform_rule(podman: PodmanService, tmp_path: Path) -> None:
    _build_arm64(podman, tmp_path, "harness-test/arm64:1")
    code, report = _package(podman, tmp_path, "harness-test/arm64:1")
    assert code == 1
    assert report.platform == "linux/arm64"
    assert [r.rule for r in report.failures()] == ["platform"]
    assert report.failures()[0].detail.startswith("linux/arm64")
    assert "exec format error" in report.failures()[0].detail


def test_amd64_image_passes_and_has_a_size_breakdown(podman: PodmanService, tmp_path: Path) -> None:
    files = {**model_files([1000, 64]), "/root/.cache/pip/wheels/x.whl": b"p" * 50_000}
    build_image(podman, "harness-test/amd64:1", {**files, "/bin/serve": PROGRAM_STUB})
    code, report = _package(podman, tmp_path, "harness-test/amd64:1")
    assert code == 0, report.failures()
    assert report.rules[0].rule == "platform" and report.rules[0].status == "pass"
    assert report.platform == "linux/amd64"
    sizes = report.sizes
    assert sizes is not None
    assert len(sizes.layers) == report.layer_count
    assert sizes.total_bytes == sum(lay.bytes for lay in sizes.layers)
    assert any(lay.created_by and "COPY" in lay.created_by for lay in sizes.layers)
    pip = [p for p in sizes.largest_paths if p.kind == "pip cache"]
    assert [(p.path, p.bytes) for p in pip] == [("/root/.cache/pip/wheels", 50_000)]
    assert sizes.hints[0].startswith("pip cache: 50,000 bytes")


def test_gate_image_stops_at_the_platform_rule(podman: PodmanService, tmp_path: Path) -> None:
    _build_arm64(podman, tmp_path, "harness-test/arm64-gate:1")
    run = tmp_path / "gate"
    argv = ["gate", "--image", "harness-test/arm64-gate:1", "--docker-host", podman.socket_url]
    code = main([*argv, "--out", str(run), "--quiet"])
    assert code == 1
    gate = json.loads((run / "gate.json").read_text())
    assert gate["verdict"] == "FAIL"
    texts = [r["text"] for r in gate["reasons"]]
    assert any(t.startswith("package rule platform: linux/arm64") for t in texts), texts
    assert not (run / "check.json").exists()  # never started
