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

from harness.data.layout import SAMPLES_DIR
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
    blocking = [r["text"] for r in gate["reasons"] if r["blocking"]]
    assert any(
        "submissions without /v1/chat/completions fail quality evaluation" in t for t in blocking
    )
    assert not any(r["source"] == "package" for r in gate["reasons"] if r["blocking"])
    assert "latency and quality skipped" in proc.stderr
    # the container is gone afterwards
    assert podman.client.containers.list(all=True, filters={"label": "harness=gate"}) == []
