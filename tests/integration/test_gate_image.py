"""harness gate --image: package → offline run → check, judged with the package rules.

The image is a FROM scratch busybox httpd with baked-in model files: it packages
cleanly and answers /ping, but has no model endpoints, so the gate must say FAIL
for the missing chat route (the failure the competition page warns about) and
stop before spending time on latency and quality.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import docker
import pytest

from harness.data.layout import SAMPLES_DIR
from tests.fixtures.podman import PROGRAM_STUB, PodmanService, build_image, model_files

pytestmark = [pytest.mark.podman, pytest.mark.timeout(300)]

BUSYBOX = "/bin/busybox"


def test_gate_image_fails_on_missing_endpoints(podman: PodmanService, tmp_path: Path) -> None:
    if not Path(BUSYBOX).exists():
        pytest.fail("busybox-static is required for this test (apt-get install busybox-static)")
    tag = "harness-test/gate-httpd:1"
    build_image(
        podman,
        tag,
        {**model_files(), "/bin/busybox": Path(BUSYBOX).read_bytes(), "/www/ping": b"ok\n"},
        entrypoint=["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/www"],
    )
    run = tmp_path / "run"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "gate",
            "--image",
            tag,
            "--docker-host",
            podman.socket_url,
            "--out",
            str(run),
            "--ready-timeout",
            "60",
            "--data-dir",  # the gate checks quality's data before its first step
            str(SAMPLES_DIR),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        env=dict(os.environ, HARNESS_CACHE_DIR=str(tmp_path / "cache")),
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    gate = json.loads(proc.stdout)
    assert gate["verdict"] == "FAIL"
    assert gate["reports"] == ["check", "package"]
    package = json.loads((run / "package.json").read_text())
    assert package["passed"] is True
    assert (run / "image.tar.gz").exists()
    # the verdict names the image it judged: what `harness submit` of this image looks for
    assert gate["image_id"] == package["image_id"] and gate["image_id"].startswith("sha256:")
    blocking = [r["text"] for r in gate["reasons"] if r["blocking"]]
    assert any(
        "submissions without /v1/chat/completions fail quality evaluation" in t for t in blocking
    )
    assert not any(r["source"] == "package" for r in gate["reasons"] if r["blocking"])
    assert "latency, quality and audit skipped" in proc.stderr
    # what ran: the image's inspection, kept when the check step took the server's account
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["taken"] == "after" and manifest["sources"]["launch"] == "harness gate --image"
    assert manifest["settings"]["image.ref"] == tag
    image_id = manifest["settings"]["image.id"].removeprefix("sha256:")
    assert image_id == package["image_id"].removeprefix("sha256:")
    assert manifest["settings"]["launch.argv"] == "/bin/busybox httpd -f -p 8080 -h /www"
    # the model files' identity from the package step, kept through the launch and the check
    assert package["weights_id"] is not None
    assert manifest["settings"]["model.weights_id"] == package["weights_id"]
    assert manifest["sources"]["archive"] == "image.tar.gz"
    # the container is gone afterwards
    assert podman.client.containers.list(all=True, filters={"label": "harness=gate"}) == []


def _engine_says(podman: PodmanService, tag: str) -> str:
    """What the engine answers when asked to start ``tag`` (the container removed again)."""
    container = podman.client.containers.create(tag)
    try:
        with pytest.raises(docker.errors.APIError) as err:
            container.start()
    finally:
        container.remove(force=True)
    return " ".join(str(err.value.explanation).split())


@pytest.mark.parametrize(
    ("files", "entrypoint", "engine_refuses"),
    [
        # no exec bit: the engine refuses to start it
        ({"/app/serve": PROGRAM_STUB}, ["/app/serve"], True),
        # a #!/bin/sh script with no /bin/sh: it starts, and exits at once
        ({"/bin/serve": b"#!/bin/sh\nexit 0\n"}, ["/bin/serve"], False),
    ],
    ids=["no-exec-bit", "no-interpreter"],
)
def test_gate_image_that_cannot_start_fails_and_leaves_nothing(
    podman: PodmanService,
    tmp_path: Path,
    files: dict[str, bytes],
    entrypoint: list[str],
    engine_refuses: bool,
) -> None:
    """Issue 27: the container is removed, the engine's whole message is shown and
    recorded, and gate.json says FAIL (exit 1)."""
    tag = f"harness-test/cannot-start-{str(engine_refuses).lower()}:1"
    build_image(podman, tag, {**model_files(), **files}, entrypoint=entrypoint)
    message = _engine_says(podman, tag) if engine_refuses else ""
    run = tmp_path / "run"
    argv = ["gate", "--image", tag, "--docker-host", podman.socket_url, "--out", str(run)]
    proc = subprocess.run(
        [sys.executable, "-m", "harness", *argv, "--ready-timeout", "60"],
        capture_output=True,
        text=True,
        timeout=280,
        env=dict(os.environ),
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    gate = json.loads((run / "gate.json").read_text())
    assert gate["verdict"] == "FAIL"
    blocking = [r["text"] for r in gate["reasons"] if r["blocking"]]
    (starts,) = [t for t in blocking if t.startswith("package rule starts: ")]
    if engine_refuses:
        assert "permission denied" in message
        assert f"the engine could not start {tag}: {message}" in starts
        assert message in " ".join(proc.stderr.split())  # the whole message, not cut
    else:
        assert f"{tag} exited before /ping answered" in starts
    # the container is gone: the API and the podman CLI agree
    assert podman.client.containers.list(all=True, filters={"label": "harness=gate"}) == []
    listed = podman.podman("ps", "-a", "--format", "{{.Image}}")
    assert listed.returncode == 0 and tag not in listed.stdout
