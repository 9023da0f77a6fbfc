"""harness.image.engine.reload and exit_code: an inspect that races a container's exit is asked again.

Podman 4.3 answered one inspect of a container exiting at that instant with
``500 read /proc/PID/cgroup: no such process`` (seen in CI); the next inspect said "exited".
The container here stands in for docker-py's at the one method ``reload`` calls.
"""

from __future__ import annotations

import docker.errors
import pytest
import requests

from harness.errors import EngineError
from harness.image.engine import exit_code, reload


def _api_error(status: int, explanation: str) -> docker.errors.APIError:
    response = requests.Response()
    response.status_code = status
    return docker.errors.APIError("inspect", response=response, explanation=explanation)


class Inspected:
    """Raises the given errors in turn, then answers."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def reload(self) -> None:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)


def test_a_500_while_the_container_exits_is_asked_again() -> None:
    box = Inspected(_api_error(500, "read /proc/5815/cgroup: no such process"))
    reload(box, "container of x", pause_s=0)
    assert box.calls == 2


def test_five_500s_are_the_engines_error_with_its_message() -> None:
    box = Inspected(*[_api_error(500, "read /proc/1/cgroup: no such process")] * 5)
    with pytest.raises(
        EngineError, match=r"container of x: the engine answered read /proc/1/cgroup"
    ):
        reload(box, "container of x", pause_s=0)
    assert box.calls == 5


def test_not_found_and_client_errors_are_not_asked_again() -> None:
    gone = Inspected(docker.errors.NotFound("no such container"))
    with pytest.raises(EngineError, match="not found"):
        reload(gone, "container of x", pause_s=0)
    assert gone.calls == 1
    refused = Inspected(_api_error(409, "conflict"))
    with pytest.raises(EngineError, match="conflict"):
        reload(refused, "container of x", pause_s=0)
    assert refused.calls == 1


class Seen:
    """What an inspect left on docker-py's container: ``status`` and ``attrs``."""

    def __init__(self, status: str, state: dict[str, object]) -> None:
        self.status = status
        self.attrs = {"State": state}


def test_exit_code_only_once_exited_or_dead() -> None:
    assert exit_code(Seen("running", {"ExitCode": 0})) is None
    assert exit_code(Seen("created", {})) is None
    assert exit_code(Seen("exited", {"ExitCode": 3})) == 3
    assert exit_code(Seen("dead", {})) == -1
