"""Wrong invocations of `harness package` and `harness gate --image`, each through the
entry point (tests/fixtures/wrong_invocation.py: `main` in-process, as a child would).

Every one must end with the README's exit code (2: usage or config error, 3: the engine
cannot be reached), no traceback, and one `harness: error:` line that says what is wrong
and what to do. Engines are a private Podman service (tests/fixtures/podman.py) or a socket
where nothing listens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fixtures.podman import PodmanService, build_image, model_files
from tests.fixtures.wrong_invocation import run_harness

pytestmark = [pytest.mark.podman, pytest.mark.timeout(600)]

GOOD = "harness-test/wrong-invocations:1"
NOWHERE = "unix:///nonexistent/harness/engine.sock"  # nothing listens there


@dataclass(frozen=True)
class Where:
    """What a case's command line may name: the live engine, a scratch folder, a file."""

    host: str  # the private Podman service's socket URL
    tmp: Path
    file: Path  # an existing regular file
    unwritable: Path  # a folder this process may not create files in


@dataclass(frozen=True)
class Case:
    name: str
    argv: Callable[[Where], list[str]]
    code: int  # the README's exit code
    says: str  # what is wrong, in the error line
    todo: str  # what to do, in the same line
    env: dict[str, str] = field(default_factory=dict)
    # gate.json's verdict in --out when the gate measured something; "": nothing was
    # measured, so no gate.json (and no ledger row) is written (issue 47)
    gate_verdict: str | None = None


def _out(w: Where, name: str) -> list[str]:
    return ["--out", str(w.tmp / name)]


def _engine(w: Where) -> list[str]:
    return ["--docker-host", w.host]


ENGINE_TODO = "pass --docker-host unix:///PATH/podman.sock"
OUTPUT_TODO = "pass --output a file path (ending in image.tar.gz) in a folder you can write to"

CASES = [
    Case(
        "package without --image or --archive",
        lambda w: ["package"],
        2,
        "give exactly one of --image or --archive",
        "e.g. harness package --image team/server:v1",
    ),
    Case(
        "package with both --image and --archive",
        lambda w: ["package", "--image", GOOD, "--archive", str(w.file)],
        2,
        "give exactly one of --image or --archive",
        "e.g. harness package --image team/server:v1",
    ),
    Case(
        "package of no such image",
        lambda w: ["package", "--image", "harness-test/nosuch:1", *_engine(w), *_out(w, "a")],
        2,
        "image harness-test/nosuch:1: no such image",
        "check the name with `docker images`",
    ),
    Case(
        "package of a name that cannot be an image's",
        lambda w: ["package", "--image", "Team/Bad Name", *_engine(w), *_out(w, "b")],
        2,
        "image Team/Bad Name: not a valid image name",
        "give NAME[:TAG] in lower case",
    ),
    Case(
        "package --output under a file",
        lambda w: (
            [
                "package",
                "--image",
                GOOD,
                *_engine(w),
                *_out(w, "c"),
                "--output",
                str(w.file / "image.tar.gz"),
            ]
        ),
        2,
        "cannot create the folder of --output",
        "pass --output to a writable folder",
    ),
    Case(
        "package --output that is a folder",
        lambda w: ["package", "--image", GOOD, *_engine(w), *_out(w, "d"), "--output", str(w.tmp)],
        2,
        "is a folder",
        OUTPUT_TODO,
    ),
    Case(
        "package --output in an unwritable folder",
        lambda w: (
            [
                "package",
                "--image",
                GOOD,
                *_engine(w),
                *_out(w, "e"),
                "--output",
                str(w.unwritable / "image.tar.gz"),
            ]
        ),
        2,
        "cannot write the archive to",
        OUTPUT_TODO,
    ),
    Case(
        "package --out that is a file",
        lambda w: ["package", "--image", GOOD, *_engine(w), "--out", str(w.file)],
        2,
        "cannot create run folder",
        "pass --out to a writable folder",
    ),
    Case(
        "package --level 0",
        lambda w: ["package", "--image", GOOD, "--level", "0"],
        2,
        "argument --level: invalid choice: 0",
        "choose from 1, 2, 3",
    ),
    Case(
        "package --threads 0",
        lambda w: ["package", "--image", GOOD, "--threads", "0"],
        2,
        "argument --threads",
        "must be > 0",
    ),
    Case(
        "package --compressor bzip2",
        lambda w: ["package", "--image", GOOD, "--compressor", "bzip2"],
        2,
        "argument --compressor: invalid choice: 'bzip2'",
        "choose from 'auto', 'pigz', 'zlib'",
    ),
    Case(
        "package --max-bytes -1",
        lambda w: ["package", "--image", GOOD, "--max-bytes", "-1"],
        2,
        "argument --max-bytes",
        "must be > 0",
    ),
    Case(
        "package --docker-host where nothing listens",
        lambda w: ["package", "--image", GOOD, "--docker-host", NOWHERE, *_out(w, "f")],
        3,
        f"cannot reach a container engine at {NOWHERE}",
        ENGINE_TODO,
    ),
    Case(
        "package with DOCKER_HOST pointing at nothing",
        lambda w: ["package", "--image", GOOD, *_out(w, "g")],
        3,
        f"cannot reach a container engine at {NOWHERE}",
        ENGINE_TODO,
        env={"DOCKER_HOST": NOWHERE},
    ),
    Case(
        "package with DOCKER_HOST a closed TCP port",
        lambda w: ["package", "--image", GOOD, *_out(w, "h")],
        3,
        "cannot reach a container engine at tcp://127.0.0.1:1",
        ENGINE_TODO,
        env={"DOCKER_HOST": "tcp://127.0.0.1:1"},
    ),
    Case(
        "package --archive that does not exist",
        lambda w: ["package", "--archive", str(w.tmp / "none.tar.gz")],
        2,
        "no such file",
        "give --archive the image.tar.gz that `harness package --image` wrote",
    ),
    Case(
        "package --archive that is not an image archive",
        lambda w: ["package", "--archive", str(w.file), *_out(w, "i")],
        2,
        "not a readable image archive",
        "make it with `harness package`",
    ),
    Case(
        "gate --image of no such image",
        lambda w: ["gate", "--image", "harness-test/nosuch:1", *_engine(w), *_out(w, "j")],
        2,
        "image harness-test/nosuch:1: no such image",
        "check the name with `docker images`",
        gate_verdict="",
    ),
    Case(
        "gate --image with --url too",
        lambda w: ["gate", "--image", GOOD, "--url", "http://127.0.0.1:9"],
        2,
        "give exactly one of RUN_DIR, --url or --image",
        "e.g. harness gate",
    ),
    Case(
        "gate --image --skip a step that does not exist",
        lambda w: ["gate", "--image", GOOD, "--skip", "upload"],
        2,
        "argument --skip: invalid choice: 'upload'",
        "choose from",
    ),
    Case(
        "gate --image --ready-timeout 0",
        lambda w: ["gate", "--image", GOOD, "--ready-timeout", "0"],
        2,
        "argument --ready-timeout",
        "must be > 0",
    ),
    Case(
        "gate --image with DOCKER_HOST pointing at nothing",
        lambda w: ["gate", "--image", GOOD, *_out(w, "k")],
        3,
        f"cannot reach a container engine at {NOWHERE}",
        ENGINE_TODO,
        env={"DOCKER_HOST": NOWHERE},
        gate_verdict="",
    ),
    Case(
        "gate --image --out that is a file",
        lambda w: ["gate", "--image", GOOD, *_engine(w), "--out", str(w.file)],
        2,
        "cannot create run folder",
        "pass --out to a writable folder",
    ),
]


@pytest.fixture(scope="module")
def where(podman: PodmanService, tmp_path_factory: pytest.TempPathFactory) -> Where:
    build_image(podman, GOOD, model_files())
    tmp = tmp_path_factory.mktemp("wrong")
    file = tmp / "a-file"
    file.write_text("not an image\n")
    if os.geteuid() == 0:
        # root may write into any folder whatever its mode; sysfs takes no new files
        unwritable = Path("/sys")
    else:
        unwritable = tmp / "read-only"
        unwritable.mkdir()
        unwritable.chmod(0o500)
    return Where(host=podman.socket_url, tmp=tmp, file=file, unwritable=unwritable)


def test_there_are_at_least_twelve() -> None:
    assert len(CASES) >= 12
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_wrong_invocation(case: Case, where: Where) -> None:
    proc = run_harness(
        case.argv(where),
        reports=where.tmp / "reports",
        timeout_s=240,
        env=case.env,
        unset=() if "DOCKER_HOST" in case.env else ("DOCKER_HOST",),
        cwd=where.tmp,  # a run folder without --out would land here, not in the repository
    )
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out, out[-3000:]
    assert proc.rc == case.code, out[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("harness: error: ")]
    assert errors, proc.stderr[-3000:]
    assert len(errors) == len(set(errors)), errors  # each error said once
    line = next((e for e in errors if case.says in e), None)
    assert line is not None, errors
    assert case.todo in line, line
    if case.gate_verdict is not None:  # what was measured is judged and saved all the same
        argv = case.argv(where)
        folder = Path(argv[argv.index("--out") + 1])
        if not case.gate_verdict:  # nothing was: no verdict
            assert not (folder / "gate.json").exists()
            return
        gate = json.loads((folder / "gate.json").read_text())
        assert gate["verdict"] == case.gate_verdict
