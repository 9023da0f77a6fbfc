"""Run an image the way the evaluation machine does: no internet, port 8080, /ping polled.

``async with running_image(client, "team/img:tag") as running:`` yields the base
URL once ``/ping`` answers 200 and always removes the container afterwards: it is
created, then started, so a container the engine cannot start (an entrypoint
without an exec bit, a missing interpreter) is removed too, and the engine's whole
message is raised as :class:`ImageDidNotStart`.

Offline by default: the container joins an *internal* network (no default
route, so nothing can be downloaded at start-up) and is reached at its own
address on that network. Engines drop published ports on internal networks
(Podman 4.3 / netavark does), so the host talks to the container's address,
which works wherever the engine runs on the same Linux host. With
``offline=False`` the port is published on a free 127.0.0.1 port instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import docker

from harness.client.readiness import probe
from harness.errors import EngineError, UnreachableError
from harness.image.engine import engine_errors, engine_message, exit_code, reload

OFFLINE_NETWORK = "harness-offline"


class ImageDidNotStart(UnreachableError):
    """The image's own failure: the engine could not start its container, or the container
    exited before it was ready. ``gate --image`` judges it a FAIL (the grader would too)."""


@dataclass
class RunningImage:
    url: str
    container_id: str
    network: str
    ready_s: float
    attempts: int
    # the container as the engine describes it (``docker inspect``): Image, Config, …
    attrs: dict[str, Any] = field(default_factory=dict)


def ensure_internal_network(client: docker.DockerClient, name: str) -> None:
    with engine_errors(f"network {name}"):
        found = client.networks.list(names=[name])
        if found:
            if not found[0].attrs.get("Internal"):
                raise EngineError(
                    f"network {name} exists but is not internal",
                    hint=f"remove it: docker network rm {name}",
                )
            return
        client.networks.create(name, driver="bridge", internal=True)


def container_address(attrs: dict[str, Any], network: str, port: int, offline: bool) -> str:
    settings = attrs.get("NetworkSettings") or {}
    if offline:
        ip = ((settings.get("Networks") or {}).get(network) or {}).get("IPAddress")
        if not ip:
            raise EngineError(f"the container has no address on network {network}")
        return f"http://{ip}:{port}"
    bindings = (settings.get("Ports") or {}).get(f"{port}/tcp") or []
    if not bindings:
        raise EngineError(f"port {port} was not published")
    return f"http://127.0.0.1:{bindings[0]['HostPort']}"


def create_options(
    *, port: int, offline: bool = True, network: str = OFFLINE_NETWORK, label: str = "gate"
) -> dict[str, Any]:
    """The container options ``gate --image`` runs an image with (``containers.create``'s
    keywords): the internal network when offline, else ``port`` published on a free
    127.0.0.1 port; the label ``harness=<label>`` (``harness tune``'s candidates: ``tune``)."""
    kwargs: dict[str, Any] = {"labels": {"harness": label}}
    if offline:
        kwargs["network"] = network
    else:
        kwargs["ports"] = {f"{port}/tcp": ("127.0.0.1", None)}
    return kwargs


def image_attrs(client: docker.DockerClient, image: str) -> dict[str, Any]:
    """``docker inspect IMAGE`` (digests, platform); empty when the engine cannot say."""
    try:
        return dict(client.images.get(image).attrs)
    except docker.errors.DockerException:
        return {}


def tail_logs(container: Any) -> str:
    with contextlib.suppress(docker.errors.DockerException):
        text: str = container.logs(tail=5).decode(errors="replace").strip()
        return text.replace("\n", " | ")[-400:]
    return ""


@contextlib.asynccontextmanager
async def running_image(
    client: docker.DockerClient,
    image: str,
    *,
    port: int = 8080,
    ready_path: str = "/ping",
    interval_s: float = 5.0,
    timeout_s: float = 600.0,
    offline: bool = True,
    network: str = OFFLINE_NETWORK,
    on_attempt: Callable[[int, float, str], None] | None = None,
) -> AsyncIterator[RunningImage]:
    if offline:
        await asyncio.to_thread(ensure_internal_network, client, network)
    kwargs = create_options(port=port, offline=offline, network=network)
    with engine_errors(f"creating a container of {image}"):
        container = await asyncio.to_thread(client.containers.create, image, **kwargs)
    try:
        try:
            await asyncio.to_thread(container.start)
        except docker.errors.APIError as err:
            raise ImageDidNotStart(
                f"the engine could not start {image}: {engine_message(err)}",
                hint="the grader could not start it either: fix the entrypoint "
                "(`harness package` checks it)",
            ) from None

        async def still_running(last: str) -> None:
            await asyncio.to_thread(reload, container, f"container of {image}")
            code = exit_code(container)
            if code is not None:
                raise ImageDidNotStart(
                    f"{image} exited before {ready_path} answered (code {code}, last: {last})",
                    hint=f"its last log lines: {tail_logs(container) or '(none)'}",
                )

        await still_running("not polled yet")
        base = container_address(container.attrs, network, port, offline)
        start = time.monotonic()
        attempts = 0
        async with aiohttp.ClientSession() as session:
            while True:
                attempts += 1
                seen = await probe(session, base + ready_path, timeout_s=min(5.0, interval_s))
                elapsed = time.monotonic() - start
                if on_attempt is not None:
                    on_attempt(attempts, elapsed, seen)
                if seen == "200":
                    break
                await still_running(seen)
                if elapsed + interval_s > timeout_s:
                    raise UnreachableError(
                        f"{image}: {ready_path} not 200 after {elapsed:.0f} s ({attempts} polls, last: {seen})",
                        hint="the grader gives up after 10 minutes; load faster or check the port",
                    )
                await asyncio.sleep(interval_s)
        yield RunningImage(
            url=base,
            container_id=str(container.id),
            network=network if offline else "bridge",
            ready_s=elapsed,
            attempts=attempts,
            attrs=dict(container.attrs),
        )
    finally:
        with contextlib.suppress(docker.errors.NotFound):
            await asyncio.to_thread(container.remove, force=True)
