"""Wrong invocations of ``harness report`` and ``harness compare``, each through the entry
point (tests/fixtures/wrong_invocation.py: ``main`` in-process, as a child would).

Every one must end with the README's exit code and one line saying what is wrong
and what to do (``harness: error: WHAT — WHAT TO DO``), never a traceback. The
folders are literal reports written by the report classes (tests/unit/test_report_data.py,
tests/fixtures/report_kinds.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.report_kinds import write_audit, write_check, write_throughput
from tests.fixtures.wrong_invocation import Answer, run_harness
from tests.unit.test_report_data import make_history, write_latency

pytestmark = pytest.mark.timeout(120)
T0 = "2026-01-05T10:00:00+00:00"


def _with_profile(folder: Path, profile: str) -> Path:
    data = json.loads((folder / "latency.json").read_text(encoding="utf-8"))
    data["provenance"]["profile"] = profile
    (folder / "latency.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reports folder of four runs, and beside it the odd folders and files."""
    base = tmp_path_factory.mktemp("wrong")
    make_history(base / "reports")
    write_audit(base / "reports" / "20260106-100000-audit")  # folded: no row, no group
    (base / "a-file").write_text("not a folder\n", encoding="utf-8")
    (base / "empty").mkdir()
    corrupt = base / "corrupt"
    corrupt.mkdir()
    (corrupt / "latency.json").write_text('{"kind": "latency", "schema', encoding="utf-8")
    newer = base / "newer"
    write_latency(newer, {"short": 1000.0}, started_at=T0)
    data = json.loads((newer / "latency.json").read_text(encoding="utf-8"))
    data["schema_version"] = 99
    (newer / "latency.json").write_text(json.dumps(data), encoding="utf-8")
    write_throughput(base / "paris")  # gpumode-paris
    medians = {"short": 1000.0, "medium": 2000.0, "long": 3000.0}
    write_latency(base / "qwen", medians, started_at=T0)
    write_latency(base / "other", medians, started_at=T0)
    _with_profile(base / "other", "x")
    write_check(base / "check-only")
    (base / "bad-ledger").mkdir()
    write_latency(base / "bad-ledger" / "run", medians, started_at=T0)
    (base / "bad-ledger" / "ledger.jsonl").write_bytes(b"\xff\xfe\x00 not utf-8\n")
    return base


R = "{base}/reports"
CASES: list[tuple[str, list[str], int, str]] = [
    ("no such folder", ["report", "{base}/nosuch"], 2, "no such run folder"),
    ("a file, not a folder", ["report", "{base}/a-file"], 2, "a file, not a run folder"),
    ("a folder with no report", ["report", "{base}/empty"], 4, "no report in this folder"),
    ("no such reports folder", ["report", "--reports-dir", "{base}/nosuch"], 2, "no such reports"),
    ("--profile nosuch", ["report", "--reports-dir", R, "--profile", "nosuch"], 2, "no such profile"),
    ("--experiment nosuch", ["report", "--reports-dir", R, "--experiment", "x"], 2, "no run of this"),
    ("--experiment a folded folder's", ["report", "--reports-dir", R, "--experiment", "no profile on server at h:1 (no fingerprint)"], 2, "no run of this"),
    ("--hide a folder of no run", ["report", "--hide", "{base}/empty"], 2, "not a run folder"),
    ("--hide a missing folder", ["report", "--hide", "{base}/nosuch"], 2, "no such run folder"),
    ("--hide beside a RUN_DIR", ["report", "{base}/qwen", "--hide", "{base}/qwen"], 2, "--hide"),
    ("--html under a file", ["report", "{base}/qwen", "--html", "{base}/a-file/r.html"], 2, "is a file"),
    ("--html for two runs", ["report", "{base}/qwen", "{base}/paris", "--html", "x.html"], 2, "one RUN_DIR"),
    ("an unreadable ledger", ["report", "--reports-dir", "{base}/bad-ledger"], 2, "cannot read the ledger"),
    ("compare: no such folder", ["compare", "{base}/nosuch", "{base}/qwen"], 2, "not a run folder"),
    ("compare: a file", ["compare", "{base}/qwen", "{base}/a-file"], 2, "not a run folder"),
    ("compare: one folder twice", ["compare", "{base}/qwen", "{base}/qwen"], 2, "the same folder"),
    ("compare: a corrupt latency.json", ["compare", "{base}/qwen", "{base}/corrupt"], 2, "not valid JSON"),
    ("compare: a newer schema", ["compare", "{base}/qwen", "{base}/newer"], 2, "schema_version 99"),
    ("compare: nothing compare reads", ["compare", "{base}/qwen", "{base}/check-only"], 2, "none of"),
    ("compare: a folder of another profile", ["compare", "{base}/qwen", "{base}/paris"], 2, "'gpumode-paris'"),
    ("compare: two profiles", ["compare", "{base}/qwen", "{base}/other"], 2, "under 'x'"),
    ("compare: a bad --min-effect", ["compare", "{base}/qwen", "{base}/qwen", "--min-effect", "-1"], 2, "--min-effect"),
]  # fmt: skip


def _harness(args: list[str], cwd: Path) -> Answer:
    return run_harness(args, reports=cwd / "reports", cwd=cwd)


@pytest.mark.parametrize(
    ("args", "code", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_wrong_invocation_is_one_line_and_the_readmes_exit_code(
    where: Path, args: list[str], code: int, says: str
) -> None:
    done = _harness([a.replace("{base}", str(where)) for a in args], where)
    assert "Traceback" not in done.stdout + done.stderr
    assert done.rc == code, done.stderr
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("harness: error:")]
    assert len(errors) == 1, done.stderr
    assert says in errors[0]
    # what to do: after the dash (ours), or argparse's usage line above it (a bad flag)
    assert " — " in errors[0] or done.stderr.startswith("usage: harness"), errors[0]
    others = [
        ln
        for ln in done.stderr.splitlines()
        if ln and not ln.startswith(("harness:", "usage:", " "))
    ]
    assert others == [], done.stderr


@pytest.mark.parametrize("folder", ["corrupt", "newer"])
def test_report_shows_an_unreadable_report_and_what_to_do(where: Path, folder: str) -> None:
    """``report`` works on what a run left behind (README: exit 0): the file is named, with advice."""
    done = _harness(["report", str(where / folder), "--no-html"], where)
    assert "Traceback" not in done.stdout + done.stderr and done.rc == 0
    flat = " ".join(done.stdout.split())  # the console wraps long lines
    assert "unreadable: latency.json:" in flat
    assert "— re-run the command that wrote it" in flat or "— read it with harness" in flat


@pytest.mark.parametrize(
    "args", [["{base}/qwen"], ["--reports-dir", R], ["--reports-dir", R, "--json"]]
)
def test_a_reader_that_goes_away_leaves_the_readmes_exit_code(where: Path, args: list[str]) -> None:
    """``harness report DIR | head -2``: the pipe is closed before harness writes, so every
    write meets a closed pipe; the command ends with its own code, 0 here (rich's console
    ended it with 1, FAIL's code), and no traceback (issue 34)."""
    import os
    import subprocess
    import sys

    from tests.fixtures.wrong_invocation import REPO

    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte
    env = {**os.environ, "PYTHONPATH": str(REPO), "HARNESS_REPORTS_DIR": str(where / "reports")}
    env.pop("COLUMNS", None)
    argv = [a.replace("{base}", str(where)) for a in args]
    try:
        done = subprocess.run(
            [sys.executable, "-m", "harness", "report", *argv],
            stdout=write, stderr=subprocess.PIPE, text=True, env=env, timeout=60, cwd=where,
        )  # fmt: skip
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
