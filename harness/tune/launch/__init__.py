"""A candidate's launch: from the command template (a process on this machine,
harness/tune/launch/candidate.py) or from the image (a container, as ``gate --image`` runs it,
harness/tune/launch/container.py); both started, waited for and stopped through one face."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from harness.gate.hooks import GateHooks
from harness.manifest.launch import launched_process, serving_env
from harness.manifest.model import Launched
from harness.manifest.record import record_manifest
from harness.profiles import Profile
from harness.tune.launch import candidate, own
from harness.tune.space import Choice, Serve, Space
from harness.tune.space.template import (
    docker_line,
    dockerfile,
    launch_args,
    launch_argv,
    launch_env,
    launch_url,
    shell_line,
)

PARAMS = "params.json"
BY = "harness tune"  # the manifest's launch.by
DOCKERFILE = "Dockerfile"  # an image candidate baked: `docker build -t T - < Dockerfile`


class Server(Protocol):
    url: str

    def poll(self) -> int | None: ...  # its exit code once it has exited, else None

    def tail(self) -> str: ...  # the last lines of its log

    def wait_ready(self, path: str, timeout_s: float) -> float: ...

    def stop(self) -> None: ...  # returns once nothing of it is left


@dataclass(frozen=True)
class Launch:
    """One candidate's filled templates. ``line``: the exact launch (a shell line, or a
    ``docker run`` line for an image); ``url``: where a command candidate answers (an
    image's is its container's address, known once it runs)."""

    serve: Serve
    line: str
    url: str
    argv: list[str] = field(default_factory=list)  # command: its argv; image: its args
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0  # command: the free port; image: the profile's port in the container

    def meta(self) -> dict[str, object]:
        """What ``params.json`` records of the launch."""
        out: dict[str, object] = {"launch": self.line, "url": self.url}
        if self.serve.image is not None:
            out |= {"image": self.serve.image, "env": self.env, "args": self.argv}
        return out

    def launched(self) -> Launched:
        """What the trial's ``manifest.json`` records of the launch (docs/manifest.md): a
        command's argv and serving environment; an image's reference, env and args."""
        if self.serve.image is None:
            return launched_process(BY, self.argv, self.env)
        return Launched(
            by=BY,
            argv=tuple(self.argv),
            env=serving_env(self.env, {}),
            image={"ref": self.serve.image},
        )

    def take_manifest(self, folder: Path, url: str) -> None:
        """``folder/manifest.json`` of the ready candidate at ``url``, with this launch (the
        steps' later takes keep it; docs/manifest.md)."""
        asyncio.run(record_manifest(folder, url, taken="before", launched=self.launched()))

    def start(self, folder: Path) -> Server:
        """Start it; ``candidate.json`` is written before it can be measured. StartFailed
        when it cannot start, or when another server answers at its URL already
        (harness/tune/launch/own.py; an image's container address is its own, new)."""
        grace = self.serve.stop_grace_s
        if self.serve.image is None:
            busy = own.taken(self.url)
            if busy is not None:
                raise candidate.StartFailed(busy, why="taken", log_tail="")
            return candidate.start(self.argv, self.env, self.url, folder, grace)
        from harness.tune.launch.container import start_container

        text = dockerfile(self.serve.image, self.env, self.argv)
        (folder / DOCKERFILE).write_text(text, encoding="utf-8")
        return start_container(
            self.serve.image,
            self.env,
            self.argv,
            port=self.port,
            docker_host=self.serve.docker_host,
            folder=folder,
            grace_s=grace,
        )


def write_params(folder: Path, meta: Mapping[str, object], url: str | None = None) -> None:
    """``params.json``: the values, the note, the launch; ``url`` once the server runs (an
    image candidate's container address is known only then)."""
    out = {**meta, "url": url} if url is not None else dict(meta)
    (folder / PARAMS).write_text(json.dumps(out, indent=2), encoding="utf-8")


def plan_launch(
    serve: Serve, values: Mapping[str, Choice], image_port: int, inactive: Collection[str] = ()
) -> Launch:
    """Fill the templates: a command gets a free port of this machine as ``{port}``; an
    image's ``env`` and ``args`` get ``image_port`` (the profile's port, where
    ``gate --image`` reaches the container). ``inactive``: the parameters a condition
    switched off (harness/tune/space/conditions.py): their words and variables are left out."""
    if serve.image is None:
        port = candidate.free_port()
        argv = launch_argv(serve, values, port, inactive)
        env = launch_env(serve, values, port, inactive)
        url = launch_url(serve, values, port, inactive)
        return Launch(serve, shell_line(argv, env), url, argv, env, port)
    env = launch_env(serve, values, image_port, inactive)
    args = launch_args(serve, values, image_port, inactive)
    line = docker_line(serve.image, env, args, image_port)
    return Launch(serve, line, "", args, env, image_port)


def stop_recorded(folder: Path) -> int | str | None:
    """What a killed harness left of the candidate recorded in ``folder/candidate.json``:
    a process group is stopped (its pgid returned), a container removed (its id returned);
    None when nothing was left."""
    try:
        record = json.loads((folder / candidate.RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(record, dict) and "container" in record:
        from harness.tune.launch.container import remove_recorded

        return remove_recorded(record)
    return candidate.stop_recorded(folder)


def wait_said(
    server: Server, profile: Profile, space: Space, hooks: GateHooks
) -> float | candidate.StartFailed:
    """Wait until ``server`` is ready, saying so: the wait (where, up to how long) and its
    end. The seconds it took (the cold start), or why it failed to start."""
    path, limit = profile.server.ready_path, space.serve.ready_timeout_s
    where = (server.url.rstrip("/") + path) if server.url else path
    hooks.say(f"  started; waiting for {where} (up to {limit:.0f} s)")
    try:
        cold = server.wait_ready(path, limit)
    except candidate.StartFailed as err:
        return err
    hooks.say(f"  ready after {cold:.1f} s")
    return cold
