"""An image candidate: the image run through the Docker Engine API exactly as ``harness gate
--image`` runs it (harness/image/run.py: ``create_options``: the internal network with no
route out, the profile's port, reached at the container's own address), with the trial's
``env`` and ``args``, waited for, stopped and removed.

A container does not die with its parent: the engine runs it, not harness. So its id is
written to the trial's ``candidate.json`` as soon as it is created (before it is started,
before anything is measured), and ``harness tune --resume`` removes a container that a
killed harness left (:func:`remove_recorded`). The container is removed on every other way
out (Ctrl-C and SIGTERM included); its whole log is copied to ``server.log`` first.

docker is imported when a container is started, never by the tune's report page.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, UsageError
from harness.tune.launch.candidate import LOG, RECORD, StartFailed, poll_ready

LABEL = "tune"  # the containers' label: harness=tune
TAIL_LINES = 20


def _logs(container: Any, tail: int | None = None) -> str:
    import docker.errors
    import requests.exceptions

    try:
        raw: bytes = container.logs(tail=tail) if tail is not None else container.logs()
    except (docker.errors.DockerException, requests.exceptions.RequestException):
        return ""
    return raw.decode(errors="replace")


@dataclass
class ContainerCandidate:
    """A started container; the same face as :class:`harness.tune.launch.candidate.Candidate`."""

    client: Any  # docker.DockerClient
    container: Any  # docker.models.containers.Container
    url: str
    log: Path
    grace_s: float
    image: str

    @property
    def container_id(self) -> str:
        return str(self.container.id)

    def poll(self) -> int | None:
        """The container's exit code once it has exited (or is gone), else None."""
        import docker.errors
        import requests.exceptions

        from harness.image.engine import exit_code

        try:
            self.container.reload()
        except docker.errors.NotFound:
            return -1
        except (docker.errors.DockerException, requests.exceptions.RequestException):
            return None  # the engine did not answer: not a sign the container died
        return exit_code(self.container)

    def tail(self) -> str:
        """The last lines of its log, as the engine has it (``docker logs``)."""
        text = _logs(self.container, TAIL_LINES)
        return "\n".join(text.splitlines()[-TAIL_LINES:])

    def wait_ready(self, path: str, timeout_s: float) -> float:
        """Seconds until ``url + path`` answers 200; StartFailed if it exits or times out."""

        def exited() -> str | None:
            code = self.poll()
            if code is None:
                return None
            return (
                f"failed to start: the container of {self.image} exited with code {code} "
                "before it was ready"
            )

        return poll_ready(self.url.rstrip("/") + path, timeout_s, exited=exited, tail=self.tail)

    def stop(self) -> None:
        """Stop it (SIGTERM, SIGKILL after ``grace_s``), keep its log in ``server.log``, remove
        it; returns once the engine no longer has it."""
        import docker.errors
        import requests.exceptions

        errors = (docker.errors.DockerException, requests.exceptions.RequestException)
        with contextlib.suppress(*errors):
            self.container.stop(timeout=max(0, round(self.grace_s)))
        text = _logs(self.container)
        if text:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(text)
        try:
            self.container.remove(force=True)
        except docker.errors.NotFound:
            pass
        except errors:
            # a second try: the container must not outlive the trial
            with contextlib.suppress(docker.errors.NotFound):
                self.container.remove(force=True)
        finally:
            self.client.close()


def start_container(
    image: str,
    env: Mapping[str, str],
    args: list[str],
    *,
    port: int,
    docker_host: str | None,
    folder: Path,
    grace_s: float,
) -> ContainerCandidate:
    """Create the container (gate --image's options, plus ``env`` and ``args``), record its
    id in ``folder/candidate.json``, start it. The engine refusing to start it is
    StartFailed (the container is removed); no engine or no such image is the engine's
    error (exit 3 / 2), and the tune stops."""
    import docker.errors

    from harness.image.engine import connect, engine_errors, engine_message, exit_code, reload
    from harness.image.run import (
        OFFLINE_NETWORK,
        container_address,
        create_options,
        ensure_internal_network,
    )

    client = connect(docker_host)
    try:
        ensure_internal_network(client, OFFLINE_NETWORK)
        kwargs = create_options(port=port, network=OFFLINE_NETWORK, label=LABEL)
        kwargs["labels"]["harness.folder"] = str(folder.resolve())
        with engine_errors(f"creating a container of {image}"):
            container = client.containers.create(
                image, command=args or None, environment=dict(env), **kwargs
            )
    except HarnessError:
        client.close()
        raise
    record = {
        "container": str(container.id),
        "image": image,
        "docker_host": docker_host,
        "env": dict(env),
        "args": args,
    }
    (folder / RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
    log = folder / LOG
    cand = ContainerCandidate(client, container, "", log, grace_s, image)
    try:
        try:
            container.start()
        except docker.errors.APIError as err:
            raise StartFailed(
                f"failed to start: the engine could not start {image}: {engine_message(err)}",
                why="exited",
                log_tail=_logs(container, TAIL_LINES),
            ) from None
        reload(container, f"container of {image}")
        code = exit_code(container)
        if code is not None:
            raise StartFailed(
                f"failed to start: the container of {image} exited with code {code} "
                "before it was ready",
                why="exited",
                log_tail=_logs(container, TAIL_LINES),
            )
        cand.url = container_address(container.attrs, OFFLINE_NETWORK, port, True)
    except BaseException:
        cand.stop()
        raise
    return cand


def remove_recorded(record: Mapping[str, Any]) -> str | None:
    """Remove the container a killed harness recorded (``candidate.json``) if the engine
    still has it; returns its id, else None. An engine that cannot be reached is an error:
    the container may still be running, and the user must hear so."""
    import docker.errors

    from harness.image.engine import connect, engine_errors

    cid = str(record.get("container") or "")
    if not cid:
        return None
    host = record.get("docker_host")
    client = connect(str(host) if host else None)
    try:
        with engine_errors(f"removing container {cid[:12]}"):
            try:
                client.containers.get(cid).remove(force=True)
            except docker.errors.NotFound:
                return None
    finally:
        client.close()
    return cid


def check_image(image: str, docker_host: str | None) -> None:
    """Before the first trial: the engine answers and has the image (exit 3 / exit 2)."""
    from harness.image.engine import connect, engine_errors

    client = connect(docker_host)
    try:
        with engine_errors(f"image {image}"):
            client.images.get(image)
    except UsageError:
        raise UsageError(
            f"SPACE.toml: serve.image: {image}: no such image in the engine",
            hint="build or pull it first (`docker images` lists what the engine has)",
        ) from None
    finally:
        client.close()
