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

import pytest

from tests.fixtures.podman import PodmanService, build_image, model_files

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
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=280,
        env=dict(os.environ),
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    gate = json.loads(proc.stdout)
    assert gate["verdict"] == "FAIL"
    assert gate["reports"] == ["check", "package"]
    package = json.loads((run / "package.json").read_text())
    assert package["passed"] is True
    assert (run / "image.tar.gz").exists()
    blocking = [r["text"] for r in gate["reasons"] if r["blocking"]]
    assert any(
        "submissions without /v1/chat/completions fail quality evaluation" in t for t in blocking
    )
    assert not any(r["source"] == "package" for r in gate["reasons"] if r["blocking"])
    assert "latency and quality skipped" in proc.stderr
    # what ran: the image's inspection, kept when the check step took the server's account
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["taken"] == "after" and manifest["sources"]["launch"] == "harness gate --image"
    assert manifest["settings"]["image.ref"] == tag
    image_id = manifest["settings"]["image.id"].removeprefix("sha256:")
    assert image_id == package["image_id"].removeprefix("sha256:")
    assert manifest["settings"]["launch.argv"] == "/bin/busybox httpd -f -p 8080 -h /www"
    # the container is gone afterwards
    assert podman.client.containers.list(all=True, filters={"label": "harness=gate"}) == []
