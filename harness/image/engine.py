"""The container engine seam: a Docker Engine API client (Docker or Podman's socket).

Every docker SDK / requests error is translated here into :class:`EngineError`
with a hint, so callers never see a third-party exception.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import docker
import docker.errors
import requests.exceptions

from harness.errors import EngineError, UsageError


def connect(docker_host: str | None = None, *, timeout_s: float = 600) -> docker.DockerClient:
    """A client for ``--docker-host`` or ``DOCKER_HOST`` (e.g. ``unix:///run/podman/podman.sock``)."""
    host = docker_host or os.environ.get("DOCKER_HOST")
    try:
        if host:
            client = docker.DockerClient(base_url=host, timeout=int(timeout_s))
        else:
            client = docker.from_env(timeout=int(timeout_s))
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as err:
        where = host or "the default Docker socket"
        raise EngineError(
            f"cannot reach a container engine at {where}: {type(err).__name__}",
            hint="start Docker, or `podman system service --time=0 unix:///PATH/podman.sock` "
            "and pass --docker-host unix:///PATH/podman.sock",
        ) from None
    return client


@contextmanager
def engine_errors(what: str) -> Iterator[None]:
    """Translate SDK errors raised inside the block, naming what was being done."""
    try:
        yield
    except docker.errors.ImageNotFound:
        raise UsageError(
            f"{what}: no such image", hint="check the name with `docker images`"
        ) from None
    except docker.errors.NotFound as err:
        raise EngineError(f"{what}: not found ({engine_message(err)})") from None
    except docker.errors.APIError as err:
        said = engine_message(err)
        if "invalid reference format" in said:  # the name the user gave cannot be an image's
            raise UsageError(
                f"{what}: not a valid image name ({said})",
                hint="give NAME[:TAG] in lower case, e.g. team/server:v1",
            ) from None
        raise EngineError(f"{what}: the engine answered {said}") from None
    except (docker.errors.DockerException, requests.exceptions.RequestException) as err:
        raise EngineError(f"{what}: {type(err).__name__}: {engine_message(err)}") from None


def engine_message(err: Any) -> str:
    """The engine's whole message (an APIError's explanation), on one line, never cut."""
    text = " ".join(str(getattr(err, "explanation", None) or err).split())
    return text or type(err).__name__


def reload(container: Any, what: str, *, tries: int = 5, pause_s: float = 0.2) -> None:
    """``container.reload()`` (``docker inspect``) through :func:`engine_errors`, asking
    again when the engine answers 500. Podman 4.3 answers an inspect of a container that is
    exiting at that instant with ``500 read /proc/PID/cgroup: no such process``; the next
    inspect sees it exited (containers/podman#16383, fixed after 4.3.1). ``NotFound`` and
    4xx answers are not asked again."""
    with engine_errors(what):
        for attempt in range(1, tries + 1):
            try:
                container.reload()
                return
            except docker.errors.NotFound:
                raise
            except docker.errors.APIError as err:
                if attempt == tries or not err.is_server_error():
                    raise
            time.sleep(pause_s)


def exit_code(container: Any) -> int | None:
    """The exit code of a container that the last inspect saw exited (or dead), else None."""
    if container.status not in ("exited", "dead"):
        return None
    return int((container.attrs.get("State") or {}).get("ExitCode", -1))
