"""An interrupted ``harness latency --repeats N`` run is finished in its folder by the
command it prints (issue 34).

A real simulator process and a real SIGINT to a real ``harness latency --repeats 3``
child, stopped in its second repetition: the printed ``resume with:`` command keeps the
first repetition as it is, finishes the second as a single run is finished (its
buckets measured to the end kept), measures the third with its own seed, and pools all
three; the resumed process sends only what was missing.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

from harness.prompts import repeat_seed
from tests.fixtures.signals import interruptible

pytestmark = pytest.mark.timeout(240)

RUNS, WARMUP, REPEATS = 3, 1, 3
PER_BUCKET = RUNS + WARMUP
PER_REPEAT = 3 * PER_BUCKET  # short, medium, long


def harness(*args: str) -> list[str]:
    return [sys.executable, "-m", "harness", *args]


def posts(sp) -> int:
    return len([e for e in sp.fetch_log() if e.path == "/invocations"])


def test_the_printed_resume_command_finishes_the_repeats(sim_process, tmp_path):
    sp = sim_process(ttft_ms=120, itl_ms=0)
    out = tmp_path / "run"
    cmd = harness(
        "latency", "--url", sp.url, "--runs", str(RUNS), "--warmup", str(WARMUP),
        "--repeats", str(REPEATS), "--no-calibrate", "--out", str(out),
    )  # fmt: skip
    proc = interruptible(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
    )
    # repetition 1 done; in repetition 2 the short bucket done and the medium one begun
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and posts(sp) < PER_REPEAT + PER_BUCKET + 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert not (out / "latency.json").exists()  # nothing pooled yet
    first = json.loads((out / "repeat-1" / "latency.json").read_text())
    cut = json.loads((out / "repeat-2" / "latency.json").read_text())
    assert first["complete"] is True and cut["complete"] is False
    base = first["settings"]["repeat"]["base_seed"]
    assert first["settings"]["repeat"] == {"index": 1, "of": REPEATS, "base_seed": base}
    finished = cut["settings"]["finished_buckets"]
    assert finished[:1] == ["official/short"] and len(finished) < 3
    hint = [line for line in err.splitlines() if line.startswith("harness: resume with: ")]
    assert len(hint) == 1, err
    printed = shlex.split(hint[0].removeprefix("harness: resume with: "))
    assert printed[-1] == "--resume" and printed[printed.index("--repeats") + 1] == str(REPEATS)

    before = posts(sp)
    first_bytes = (out / "repeat-1" / "latency.json").read_bytes()
    done = subprocess.run(
        harness(*printed[1:]), capture_output=True, text=True, timeout=180, env=dict(os.environ)
    )
    assert done.returncode == 0, done.stderr
    assert (out / "repeat-1" / "latency.json").read_bytes() == first_bytes  # kept as it is
    kept_cut = [r for r in cut["requests"] if f"{r['mode']}/{r['bucket']}" in finished]
    # the resumed process sent only what was missing: nothing measured twice
    assert posts(sp) - before == 2 * PER_REPEAT - len(kept_cut)
    pooled = json.loads((out / "latency.json").read_text())
    assert pooled["complete"] is True and len(pooled["requests"]) == REPEATS * PER_REPEAT
    assert pooled["settings"]["kept_repeats"] == [1]
    assert pooled["settings"]["repeat_seeds"] == [repeat_seed(base, i) for i in (1, 2, 3)]
    for i in (2, 3):
        rep = json.loads((out / f"repeat-{i}" / "latency.json").read_text())
        assert rep["complete"] is True
        assert rep["settings"]["seed"] == repeat_seed(base, i)
    second = json.loads((out / "repeat-2" / "latency.json").read_text())
    assert [r for r in second["requests"] if f"{r['mode']}/{r['bucket']}" in finished] == kept_cut
    assert [r["kept"] for r in second["provenance"]["resumed"]] == [finished]
    spread = json.loads((out / "latency_repeats.json").read_text())
    assert spread["seed"] == base

    # a finished folder: --resume has nothing to do
    again = subprocess.run(harness(*printed[1:]), capture_output=True, text=True, timeout=60)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines()[-1] == (
        f"harness: error: {out}/latency.json is a complete run: nothing to resume"
        " — use another --out, or --force to measure again over it"
    )
