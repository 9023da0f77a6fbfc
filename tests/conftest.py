"""Shared fixtures live in tests/fixtures/<part>.py, one module per real part.

``make test-parallel`` runs the suite on two pytest-xdist workers (``-n 2 --dist
loadgroup``). Each test gets the group it must share a worker with (``xdist_group``):
every e2e test one group (one vLLM-CPU reference server and one gate run per session,
and vLLM's CPU threads never racing a second vLLM), every test that drives the private
Podman service one group (one service per session; images publish fixed ports), the
tests that read the session's tiny-VLM run one group, and every other test its file (so
a module's shared server or cluster starts once). Without ``-n`` the marks change
nothing: the suite runs as before, in one process. A worker starts with ``COLUMNS=80``
and ``LINES=24`` in its environment, which a test run in one process never sees (and
which would fold harness's piped tables at 80 columns): each worker gets the
controller's values back (set or unset) before any test runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = [
    "tests.fixtures.simulator",
    "tests.fixtures.reference_server",
    "tests.fixtures.reference_gate",
    "tests.fixtures.s3",
    "tests.fixtures.podman",
    "tests.fixtures.recording",
    "tests.fixtures.postgres",
    "tests.fixtures.tiny_vlm",
    "tests.fixtures.submit_runs",
]

_TESTS = Path(__file__).parent
_TERMINAL_ENV = ("COLUMNS", "LINES")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist controller) hand each worker this process's terminal variables."""
    node.workerinput["terminal_env"] = {k: os.environ.get(k) for k in _TERMINAL_ENV}


def pytest_configure(config: pytest.Config) -> None:
    given = getattr(config, "workerinput", {}).get("terminal_env")
    for key, value in (given or {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def worker_group(item: pytest.Item) -> str:
    """The xdist group a test runs in: ``e2e``, ``podman``, ``vlm`` (the session's one
    tiny-VLM run) or its file."""
    path = Path(str(item.path))
    fixtures: list[str] = getattr(item, "fixturenames", [])
    if _TESTS / "e2e" in path.parents or "reference_server" in fixtures:
        return "e2e"
    if item.get_closest_marker("podman") is not None or "podman" in fixtures:
        return "podman"
    if "tiny_vlm_run" in fixtures:
        return "vlm"
    return path.relative_to(_TESTS).as_posix()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.xdist_group(worker_group(item)))
