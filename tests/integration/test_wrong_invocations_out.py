"""Issue 27's table, second part: an --out (or --output, --html, --log-file) that cannot be
created, for every command (item 14: one line, exit 2, no traceback), and rows of the
other areas' commands (submit, package, report, latency, quality) beside their own tables.
The world is tests/fixtures/wrong_world.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.wrong_invocation import run_harness
from tests.fixtures.wrong_world import (
    NO_FOLDER,
    QUICK,
    World,
    judge_row,
    target,
    usage,
)
from tests.fixtures.wrong_world import world as world  # the module's fixture

pytestmark = pytest.mark.timeout(180)


# Item 14: an --out (or --output, --html, --log-file) that cannot be created, every command.
OUT = [
    usage("check", "--url", "{DOWN}", "--out", "{F}/x", says=NO_FOLDER),
    usage("check", "--url", "{DOWN}", "--out", "{F}", says="File exists; pass --out"),
    usage("latency", "--url", "{DOWN}", "--out", "{F}/x", says=NO_FOLDER),
    usage("latency", "--url", "{DOWN}", "--out", "{F}/x/y", says="Not a directory; pass --out"),
    usage("quality", "--url", "{DOWN}", "--out", "{F}/x", says=NO_FOLDER),
    usage("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris", "--out", "{F}/x"),
    usage("gate", "--url", "{DOWN}", "--out", "{F}/x", says=NO_FOLDER),
    usage("package", "--image", "team/server:v1", "--out", "{F}/x", says=NO_FOLDER),
    usage(
        "package",
        "--image",
        "team/server:v1",
        "--output",
        "{F}/x/image.tar.gz",
        says="pass --output to a writable folder",
    ),
    usage(
        "submit",
        "README.md",
        "--team",
        "t",
        "--api-url",
        "{DOWN}",
        "--out",
        "{F}/x",
        says=NO_FOLDER,
    ),
    usage("demo", "--out", "{F}/x", says=NO_FOLDER),
    usage("vlm", "import", "{W}/records.jsonl", "--out", "{F}/x", says=NO_FOLDER),
    usage(
        "vlm",
        "latency",
        "--url",
        "{DOWN}",
        "--dataset-path",
        "/nonexistent",
        "--out",
        "{F}/x",
        says=NO_FOLDER,
    ),
    usage(
        "vlm",
        "run",
        "--wrapper-dir",
        "/nonexistent",
        "--model-path",
        "/x",
        "--dataset-path",
        "/y",
        "--out",
        "{F}/x",
        says=NO_FOLDER,
    ),
    usage("report", "{W}/paris", "--html", "{F}/x/report.html", says="Not a directory"),
]


# The other areas' commands (their own tables live beside this one): what this table found.
OTHERS = [
    usage(
        "report",
        "/nonexistent/run",
        says="no such run folder",
    ),
    usage(
        "package",
        "--archive",
        "/nonexistent/image.tar.gz",
        says="no such file",
    ),
    usage(
        "quality",
        "--url",
        "{DOWN}",
        "--only",
        "nosuch",
        says="unknown benchmark",
    ),
    usage("package", "--archive", "README.md", says="not a readable image archive"),
    target("package", "--image", "t/s:1", "--docker-host", "unix:///nonexistent.sock"),
    usage("latency", "--url", "{DOWN}", "--buckets", "nosuch", says="unknown bucket 'nosuch'"),
    usage("latency", "--url", "{DOWN}", "--profile", "gpumode-paris", says="no [latency]"),
    usage("latency", "--url", "{DOWN}", "--mode", "fast", says="invalid choice: 'fast'"),
    target("latency", "--url", "{DOWN}", *QUICK, says="not ready within 1 s"),
    usage("quality", "--url", "{DOWN}", "--limit", "2.5", says="is neither a fraction"),
    usage("quality", "--url", "{DOWN}", "--profile", "aicas-vlm", says="no [quality] section"),
    usage("submit", "README.md", "--team", "t", "--api-url", "ftp://host", says="http://host"),
    usage("submit", "--team", "t", says="the following arguments are required"),
]


CASES = [*OUT, *OTHERS]


def test_every_command_has_an_out_row() -> None:
    commands = {p.values[0][0] for p in OUT}  # type: ignore[attr-defined]
    assert commands == {
        "check",
        "latency",
        "quality",
        "throughput",
        "gate",
        "package",
        "submit",
        "demo",
        "vlm",
        "report",
    }


@pytest.mark.parametrize(("args", "rc", "says", "how"), CASES)
def test_wrong_invocation(
    world: World, args: tuple[str, ...], rc: int, says: str | None, how: str
) -> None:
    judge_row(world, args, rc, says, how)


def test_no_failed_command_leaves_an_empty_run_folder(world: World, tmp_path: Path) -> None:
    """A command that fails before it measures removes the run folder it created."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for args in (
        ("check", "--url", "{DOWN}", *QUICK),
        ("throughput", "--url", "{DOWN}", "--profile", "gpumode-paris"),
        ("latency", "--url", "{DOWN}", *QUICK),
        ("demo", "--profile", "nosuch"),
    ):
        answer = run_harness(world.fill(args), reports=reports, timeout_s=120)
        assert answer.rc in (2, 3), answer.stderr
    assert sorted(p.name for p in reports.iterdir()) == []
