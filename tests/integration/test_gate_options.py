"""`harness gate` as a user runs it: the folder's profile, --skip, options reaching every step,
and a folder judged without importing docker."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.data.layout import SAMPLES_DIR
from harness.gate.report import GateReport
from harness.throughput.report import ThroughputReport

pytestmark = pytest.mark.timeout(180)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def paris_run(sim_process, tmp_path: Path) -> Path:
    """A GPU MODE Paris throughput run folder, measured against the simulator."""
    sim = sim_process(ttft_ms=2, itl_ms=0.5, output_tokens=8)
    folder = tmp_path / "paris"
    argv = ["throughput", "--url", sim.url, "--profile", "gpumode-paris", "--out", str(folder)]
    argv += ["--levels", "1", "--requests-per-level", "2", "--warmup", "0", "--spot-checks", "0"]
    argv += ["--prompt-tokens", "32", "--max-tokens", "8", "--no-chart", "--quiet"]
    argv += ["--model", "Qwen/Qwen3.5-4B"]  # the simulator serves this name, not the 35B's
    assert main(argv) == 0
    assert ThroughputReport.load(folder).provenance.profile == "gpumode-paris"
    return folder


def test_a_folder_is_judged_under_the_profile_it_was_measured_with(paris_run, capsys) -> None:
    assert main(["gate", str(paris_run), "--quiet"]) == 4  # INCOMPLETE: no check, no quality
    gate = GateReport.load(paris_run)
    assert gate.provenance.profile == "gpumode-paris"
    texts = [r.text for r in gate.reasons]
    assert "check.json is missing: run harness check into this folder" in texts
    assert "quality.json is missing: run harness quality into this folder" in texts
    assert not any("latency" in t for t in texts)
    assert gate.score_name == "weighted tok/s" and gate.score is not None
    # the same profile named explicitly is fine; another one is an error naming both
    assert main(["gate", str(paris_run), "--profile", "gpumode-paris", "--quiet"]) == 4
    capsys.readouterr()
    assert main(["gate", str(paris_run), "--profile", "efficient-qwen"]) == 2
    err = capsys.readouterr().err
    assert "'gpumode-paris'" in err and "'efficient-qwen'" in err
    assert GateReport.load(paris_run).provenance.profile == "gpumode-paris"  # not re-judged


def test_judging_a_folder_imports_no_docker(paris_run) -> None:
    code = (
        "import sys\n"
        "from harness.cli import main\n"
        f"rc = main(['gate', {str(paris_run)!r}, '--quiet'])\n"
        "print(rc, sorted(m for m in sys.modules if m.split('.')[0] == 'docker'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "4 []"


def test_ready_timeout_reaches_check(tmp_path: Path, monkeypatch, capsys) -> None:
    """A server still loading: the gate's --ready-timeout is what check waits (not its 30 s).
    (Quality's data is there: the gate checks it before its first step.)"""
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))  # punkt_tab is written here
    url = f"http://127.0.0.1:{free_port()}"
    argv = ["gate", "--url", url, "--ready-timeout", "1", "--out", str(tmp_path / "r"), "--quiet"]
    argv += ["--data-dir", str(SAMPLES_DIR)]
    assert main(argv) == 3  # unreachable: the later steps are not run
    err = capsys.readouterr().err
    # polled at 0 s and at the end of the 1 s asked for (the whole --ready-timeout)
    assert f"{url} is unreachable: GET {url}/ping for 1 s (2 attempts" in err
    # nothing was measured: no verdict, no ledger row, no run folder left (issue 47, item 3)
    assert not (tmp_path / "r").exists() and not (tmp_path / "ledger.jsonl").exists()


def test_a_gate_stopped_by_missing_data_writes_no_verdict(tmp_path: Path, capsys) -> None:
    """The Paris gate without GSM8K data: the one `harness data fetch` line, exit 2, and no
    INCOMPLETE verdict of "run harness check into this folder" lines, no ledger row."""
    out = tmp_path / "runs" / "paris"
    argv = ["gate", "--url", "http://127.0.0.1:9", "--profile", "gpumode-paris"]
    argv += ["--data-dir", str(tmp_path / "nodata"), "--out", str(out)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines()[-1].startswith("harness: error: benchmark data")
    assert "harness data fetch --out" in captured.err
    assert "into this folder" not in captured.out + captured.err
    assert "no verdict: nothing was measured" in captured.out
    assert not out.exists() and not (out.parent / "ledger.jsonl").exists()


def test_skip_runs_the_rest_and_the_verdict_names_it(sim_process, tmp_path: Path, capsys) -> None:
    """--skip quality --skip audit: check and latency run; the verdict names the skipped
    steps, and judging the folder again keeps them (issue 47, item 10)."""
    sim = sim_process(ttft_ms=1, itl_ms=0, output_tokens=4)
    folder = tmp_path / "r"
    argv = ["gate", "--url", sim.url, "--skip", "quality", "--skip", "audit", "--out", str(folder)]
    argv += ["--latency-mode", "official", "--runs", "1", "--warmup", "0", "--buckets", "short"]
    assert main([*argv, "--quiet"]) == 4  # INCOMPLETE: two steps skipped
    first = GateReport.load(folder)
    assert first.verdict == "INCOMPLETE" and first.skipped == ["audit", "quality"]
    texts = [r.text for r in first.reasons]
    assert "quality not measured: skipped with --skip quality" in texts
    assert "audit not measured: skipped with --skip audit" in texts
    assert first.provenance.command_line.count("--skip") == 2
    assert not (folder / "quality.json").exists()
    capsys.readouterr()
    assert main(["gate", str(folder)]) == 4  # the folder judged again, as it lies
    shown = capsys.readouterr().out
    assert "kept from the gate that measured it: --skip audit; --skip quality" in shown
    again = GateReport.load(folder)
    assert again.skipped == first.skipped
    assert [r.text for r in again.reasons] == texts
    assert "into this folder" not in shown


def test_a_step_a_failed_check_stopped_says_so_and_a_rejudge_keeps_it(
    sim_process, tmp_path: Path, capsys
) -> None:
    """A required check fails (the simulator serves another model than Paris's): the later
    steps are "not measured: check failed (--keep-going measures anyway)", never "run harness
    throughput into this folder", and `gate RUN_DIR` says the same (issue 47, items 3, 10)."""
    sim = sim_process(ttft_ms=1, itl_ms=0, output_tokens=4)
    folder = tmp_path / "r"
    argv = ["gate", "--url", sim.url, "--profile", "gpumode-paris", "--out", str(folder)]
    argv += ["--data-dir", str(SAMPLES_DIR), "--quiet"]
    assert main(argv) == 1
    stopped = "check failed (--keep-going measures anyway)"
    want = [f"{step} not measured: {stopped}" for step in ("throughput", "quality", "audit")]
    first = GateReport.load(folder)
    assert first.not_run == dict.fromkeys(("throughput", "quality", "audit"), stopped)
    assert [r.text for r in first.reasons if r.incomplete] == want
    assert main(["gate", str(folder), "--quiet"]) == 1
    again = GateReport.load(folder)
    assert [r.text for r in again.reasons if r.incomplete] == want
    assert "into this folder" not in capsys.readouterr().out


def test_skip_of_a_step_the_profile_has_not_is_a_usage_error(tmp_path: Path, capsys) -> None:
    argv = ["gate", "--url", "http://127.0.0.1:9", "--profile", "gpumode-paris"]
    assert main([*argv, "--skip", "latency", "--out", str(tmp_path / "r")]) == 2
    assert "--skip latency: not a step of this gate (profile gpumode-paris)" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "r").exists()  # said before a run folder is made


def test_gate_json_from_the_cli_records_name_and_note(paris_run) -> None:
    assert main(["gate", str(paris_run), "--name", "p1", "--note", "fp8", "--quiet"]) == 4
    data = json.loads((paris_run / "gate.json").read_text())
    assert (data["provenance"]["name"], data["provenance"]["note"]) == ("p1", "fp8")
