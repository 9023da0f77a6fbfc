"""running_image: a FROM scratch busybox httpd image serves /ping with no route out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from harness.errors import UnreachableError
from harness.image.engine import reload
from harness.image.run import running_image
from tests.fixtures.podman import PodmanService, build_image

pytestmark = [pytest.mark.podman, pytest.mark.timeout(180)]

BUSYBOX = "/bin/busybox"  # Debian busybox-static: statically linked, runs FROM scratch


def _busybox_image(podman: PodmanService, tag: str, entrypoint: list[str]) -> None:
    build_image(
        podman,
        tag,
        {"/bin/busybox": Path(BUSYBOX).read_bytes(), "/www/ping": b"ok\n"},
        entrypoint=entrypoint,
    )


def _exit_code(container: Any, timeout_s: float = 60) -> int:
    """Its exit code once the engine says it exited, through harness's own inspect (which
    asks again when Podman 4.3 answers 500 for a container exiting at that instant)."""
    deadline = time.monotonic() + timeout_s
    while True:
        reload(container, "probe container")
        if container.status in ("exited", "dead"):
            return int(container.attrs["State"]["ExitCode"])
        if time.monotonic() > deadline:
            pytest.fail(f"the probe container still {container.status} after {timeout_s:.0f} s")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def httpd_image(podman: PodmanService) -> str:
    if not Path(BUSYBOX).exists():
        pytest.fail("busybox-static is required for this test (apt-get install busybox-static)")
    tag = "harness-test/httpd:1"
    _busybox_image(podman, tag, ["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/www"])
    return tag


async def test_offline_run_serves_ping_and_is_removed(
    podman: PodmanService, httpd_image: str
) -> None:
    seen: list[str] = []
    async with running_image(
        podman.client,
        httpd_image,
        interval_s=0.2,
        timeout_s=30,
        on_attempt=lambda n, t, s: seen.append(s),
    ) as running:
        async with aiohttp.ClientSession() as session, session.get(running.url + "/ping") as resp:
            assert resp.status == 200
            assert await resp.text() == "ok\n"
        cid = running.container_id
        assert podman.client.networks.get(running.network).attrs["Internal"] is True
        # No route to the internet: a process on that network sees no default route.
        # (A second container rather than exec: exec sessions leave conmon behind for minutes.
        # Created, started, inspected until it exits and read, never attached: Podman's
        # attach stream for a container that exits at once can stay open forever.)
        probe = podman.client.containers.create(
            httpd_image, entrypoint=["/bin/busybox", "ip", "route"], network=running.network
        )
        try:
            probe.start()
            assert _exit_code(probe) == 0
            routes = probe.logs(stdout=True, stderr=True)
        finally:
            probe.remove(force=True)
        assert b"dev eth0" in routes and b"default" not in routes
    assert seen[-1] == "200"
    assert cid not in [c.id for c in podman.client.containers.list(all=True)]


async def test_published_port_mode(podman: PodmanService, httpd_image: str) -> None:
    async with running_image(
        podman.client, httpd_image, offline=False, interval_s=0.2, timeout_s=30
    ) as running:
        assert running.url.startswith("http://127.0.0.1:")
        async with aiohttp.ClientSession() as session, session.get(running.url + "/ping") as resp:
            assert resp.status == 200


async def test_exiting_image_fails_fast_and_is_removed(podman: PodmanService) -> None:
    tag = "harness-test/exits:1"
    _busybox_image(podman, tag, ["/bin/busybox", "sh", "-c", "echo weights missing; exit 3"])
    before = {c.id for c in podman.client.containers.list(all=True)}
    with pytest.raises(UnreachableError, match="exited before /ping") as err:
        async with running_image(podman.client, tag, interval_s=0.2, timeout_s=30):
            pass
    assert "(code 3, last: " in str(err.value)
    assert err.value.hint is not None and "weights missing" in err.value.hint
    assert {c.id for c in podman.client.containers.list(all=True)} == before
