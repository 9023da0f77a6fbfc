"""tests/fixtures/workers.py on pytest-xdist itself: the tests that share a session's server
run on one worker, and a file missing from the lists errors before its fixtures start.

Each case is a small suite in a temporary folder, run by ``pytest -n 2 --dist loadscope``
in a child process with this checkout's plugin, as ``make test`` runs the real one."""

from __future__ import annotations

import os
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from tests.fixtures.workers import scope_of

REPO = Path(__file__).resolve().parents[2]
RECORDING = textwrap.dedent(
    """
    import os

    def _record(request):
        with open(os.environ["SEEN"], "a") as out:
            out.write(request.node.nodeid + " " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")

    def test_one(request):
        _record(request)

    def test_two(request):
        _record(request)
    """
)
SERVERS = [
    "tests/e2e/test_e2e_one.py",
    "tests/e2e/test_e2e_two.py",
    "tests/integration/test_package.py",
    "tests/integration/test_tune_image.py",
]
VLM = ["tests/integration/test_vlm_run.py", "tests/integration/test_vlm_manifest.py"]
OTHERS = [f"tests/integration/test_other_{i}.py" for i in range(6)]


def _suite(pytester: pytest.Pytester, files: dict[str, str]) -> None:
    pytester.makeconftest('pytest_plugins = ["tests.fixtures.workers"]\n')
    for name, text in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.RunResult:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return pytester.runpytest_subprocess(
        "-n", "2", "--dist", "loadscope", "-p", "no:cacheprovider", "tests"
    )


def test_scopes_by_path() -> None:
    assert scope_of("tests/e2e/test_gate_reference.py::test_x") == "servers"
    assert scope_of("tests/integration/test_tune_image.py::test_x[a]") == "servers"
    assert scope_of("tests/integration/test_audit_loaded.py::test_x") == "servers"
    assert scope_of("tests/integration/test_vlm_run.py::test_x") == "vlm"
    assert scope_of("tests/unit/test_cli.py::test_x") == "tests/unit/test_cli.py"


def test_tests_that_share_a_server_run_on_one_worker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _suite(pytester, {name: RECORDING for name in SERVERS + VLM + OTHERS})
    seen = pytester.path / "seen.txt"
    monkeypatch.setenv("SEEN", str(seen))
    result = _run(pytester, monkeypatch)
    result.assert_outcomes(passed=2 * len(SERVERS + VLM + OTHERS))
    workers: dict[str, set[str]] = defaultdict(set)
    for line in seen.read_text().splitlines():
        nodeid, worker = line.split()
        assert "@" not in nodeid
        workers[scope_of(nodeid)].add(worker)
    assert len(workers["servers"]) == 1 and len(workers["vlm"]) == 1, dict(workers)
    assert set().union(*workers.values()) == {"gw0", "gw1"}, dict(workers)


def test_a_file_missing_from_the_lists_errors_before_its_fixtures_start(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    uses_podman = textwrap.dedent(
        """
        import pytest

        @pytest.fixture
        def podman():
            open("started", "w").close()  # a Podman service would start here

        def test_builds_an_image(podman):
            pass
        """
    )
    _suite(pytester, {"tests/integration/test_new_image.py": uses_podman, OTHERS[0]: RECORDING})
    monkeypatch.setenv("SEEN", str(pytester.path / "seen.txt"))
    result = _run(pytester, monkeypatch)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(
        ["*tests/integration/test_new_image.py uses the session's shared 'servers' fixtures"
         " but runs in scope 'tests/integration/test_new_image.py': add it to PODMAN_FILES"
         " in tests/fixtures/workers.py*"]
    )  # fmt: skip
    assert not (pytester.path / "started").exists()
