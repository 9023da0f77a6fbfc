"""An interrupted latency run is finished in its folder by the command it prints.

A real simulator process and a real SIGINT / SIGTERM to a real ``harness latency``
child: the printed ``resume with:`` command, run as printed (``harness`` spelled
``python -m harness``), keeps the buckets measured to their end, measures only the
rest (a bucket cut in the middle again, whole), records the resumption and writes a
complete report. A folder that already holds latency.json is refused without
--resume / --force.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures.signals import interruptible

pytestmark = pytest.mark.timeout(180)

RUNS, WARMUP = 4, 1
PER_BUCKET = RUNS + WARMUP
# the ledger flags: the resumed run stays in its group (issue 34)
LEDGER = ("--name", "base run", "--note", "the first try", "--experiment", "kv-cache")


def harness(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args]


def posts(sp) -> int:
    return len([e for e in sp.fetch_log() if e.path == "/invocations"])


def _interrupt(sp, out: Path, sig: int) -> tuple[int, str]:
    cmd = harness(
        "latency", "--url", sp.url, "--runs", str(RUNS), "--warmup", str(WARMUP),
        "--no-calibrate", "--out", str(out), *LEDGER,
    )  # fmt: skip
    proc = interruptible(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    # the short bucket done and the medium one begun: 2 of its requests answered
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and posts(sp) < PER_BUCKET + 3:
        time.sleep(0.05)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.parametrize(("sig", "rc"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_the_printed_resume_command_finishes_the_run(sim_process, tmp_path, sig, rc):
    sp = sim_process(ttft_ms=120, itl_ms=0)
    out = tmp_path / "run"
    code, err = _interrupt(sp, out, sig)
    assert code == rc, err
    partial = json.loads((out / "latency.json").read_text())
    assert partial["complete"] is False
    finished = partial["settings"]["finished_buckets"]
    assert finished[:1] == ["official/short"] and len(finished) < 3
    hint = [line for line in err.splitlines() if line.startswith("harness: resume with: ")]
    assert len(hint) == 1, err
    printed = shlex.split(hint[0].removeprefix("harness: resume with: "))
    assert printed[:2] == ["harness", "latency"] and printed[-1] == "--resume"
    assert printed[printed.index("--out") + 1] == str(out)
    for flag, value in zip(LEDGER[::2], LEDGER[1::2], strict=True):
        assert printed[printed.index(flag) + 1] == value

    before = posts(sp)
    done = subprocess.run(
        harness(*printed[1:]), capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    assert "resuming: kept official/short" in done.stdout
    final = json.loads((out / "latency.json").read_text())
    assert final["complete"] is True
    assert final["settings"]["finished_buckets"] == [
        "official/short",
        "official/medium",
        "official/long",
    ]
    kept = [r for r in partial["requests"] if f"{r['mode']}/{r['bucket']}" in finished]
    # the kept buckets' requests are the interrupted run's, unchanged; nothing twice
    assert [r for r in final["requests"] if f"{r['mode']}/{r['bucket']}" in finished] == kept
    assert len(final["requests"]) == 3 * PER_BUCKET
    # the resumed process sent only what was missing (a cut bucket again, whole)
    assert posts(sp) - before == 3 * PER_BUCKET - len(kept)
    resumed = final["provenance"]["resumed"]
    assert [r["kept"] for r in resumed] == [finished]
    assert resumed[0]["requests_kept"] == len(kept)
    assert resumed[0]["remeasured"] == sorted(
        {f"official/{r['bucket']}" for r in partial["requests"]} - set(finished)
    )
    assert final["score"] is not None
    prov = final["provenance"]
    assert (prov["name"], prov["note"], prov["experiment"]) == LEDGER[1::2]

    # a finished folder: --resume has nothing to do, and a plain re-run is refused
    again = subprocess.run(harness(*printed[1:]), capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert again.stderr.strip().splitlines()[-1] == (
        f"harness: error: {out}/latency.json is a complete run: nothing to resume"
        " — use another --out, or --force to measure again over it"
    )
    plain = subprocess.run(harness(*printed[1:-1]), capture_output=True, text=True, timeout=60)
    assert plain.returncode == 2
    assert plain.stderr.strip().splitlines()[-1] == (
        f"harness: error: {out}/latency.json already holds a latency report"
        " — use --resume to finish it, or another --out / --force to overwrite it"
    )
    assert json.loads((out / "latency.json").read_text()) == final  # untouched


def test_resume_refuses_other_settings_and_a_missing_report(sim_process, tmp_path):
    sp = sim_process(ttft_ms=120, itl_ms=0)
    out = tmp_path / "run"
    code, err = _interrupt(sp, out, signal.SIGINT)
    assert code == 130, err
    other = subprocess.run(
        harness("latency", "--url", sp.url, "--runs", "9", "--warmup", str(WARMUP),
                "--no-calibrate", "--out", str(out), "--resume"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert other.returncode == 2 and "Traceback" not in other.stderr
    assert (
        other.stderr.strip()
        .splitlines()[-1]
        .startswith(
            f"harness: error: the interrupted run in {out} was measured with runs 4; this command"
            " asks 9 — resume with the interrupted run's flags"
        )
    )
    empty = subprocess.run(
        harness("latency", "--url", sp.url, "--out", str(tmp_path / "none"), "--resume"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert empty.returncode == 2
    assert "latency.json does not exist: nothing to resume" in empty.stderr
    assert not (tmp_path / "none").exists()
