"""The answer cache against two simulator processes at one URL: a restarted server is asked
again (with a line saying why), the same server is not, ``--resume-answers`` reuses; and a
run outside any git checkout prints nothing of git's.

Each quality run starts in ``tmp_path`` (no git checkout there), as a competitor runs it:
the first as ``python -m harness quality`` in a child process (git's own stderr would show
only there: a child's file descriptors are not Python's ``sys.stderr``), the others in this
process (``main(argv)``, tests/fixtures/wrong_invocation.py: ``run_harness``), which
prints the same lines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.data.layout import REPO_ROOT, SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.quality.report import QualityReport
from harness.simulate import make_config
from harness.simulate.process import SimProcess
from tests.fixtures.wrong_invocation import Answer, run_harness

pytestmark = pytest.mark.timeout(600)


def _argv(url: str, out: Path, nltk: Path, *extra: str) -> list[str]:
    argv = ["quality", "--url", url]
    argv += ["--data-dir", str(SAMPLES_DIR), "--nltk-data", str(nltk), "--out", str(out)]
    return [*argv, "--only", "ifeval", "--limit", "0.5", *extra]


def _child(url: str, out: Path, nltk: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    cmd = [sys.executable, "-m", "harness", *_argv(url, out, nltk)]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _quality(url: str, out: Path, nltk: Path, cwd: Path, *extra: str) -> Answer:
    return run_harness(_argv(url, out, nltk, *extra), reports=cwd / "reports", cwd=cwd)


def _asked(sim: SimProcess) -> int:
    return len([e for e in sim.fetch_log() if e.path == "/invocations"])


def test_a_restarted_server_is_asked_again(tmp_path: Path) -> None:
    nltk = tmp_path / "nltk"
    write_punkt_tab(nltk)
    out = tmp_path / "run"
    first = SimProcess(make_config(ttft_ms=5, itl_ms=1)).start()
    try:
        port = int(first.url.rsplit(":", 1)[1])
        done = _child(first.url, out, nltk, tmp_path)
        assert done.returncode == 1, done.stderr  # the simulator's words fail IFEval
        assert "fatal: not a git repository" not in done.stderr + done.stdout
        assert "Traceback" not in done.stderr
        assert _asked(first) == 3
        first.clear_log()
        again = _quality(first.url, out, nltk, tmp_path)  # the same server: nothing asked
        assert again.rc == 1 and _asked(first) == 0
        assert "asking again" not in again.stdout
        assert QualityReport.load(out).benchmarks[0].cached == 3
    finally:
        first.stop()
    second = SimProcess(make_config(ttft_ms=5, itl_ms=1), port=port).start()
    try:
        assert second.url == first.url
        rerun = _quality(second.url, out, nltk, tmp_path)
        assert rerun.rc == 1, rerun.stderr
        line = next(x for x in rerun.stdout.splitlines() if "asking again" in x)
        assert line.startswith(f"the server at {second.url} restarted since the cached answers")
        assert line.endswith("--resume-answers to reuse")
        assert _asked(second) == 3
        assert QualityReport.load(out).benchmarks[0].cached == 0
    finally:
        second.stop()
    third = SimProcess(make_config(ttft_ms=5, itl_ms=1), port=port).start()
    try:
        reused = _quality(third.url, out, nltk, tmp_path, "--resume-answers")
        assert reused.rc == 1, reused.stderr
        assert "reusing the answers cached for" in reused.stdout
        assert _asked(third) == 0
        report = QualityReport.load(out)
        assert report.benchmarks[0].cached == 3
        assert "process started" in report.server_fingerprint
    finally:
        third.stop()
