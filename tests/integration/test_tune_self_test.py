"""The client's self-test that every latency report carries (docs/timing.md, "Calibration"),
in a tune: one simulator held for the whole tune instead of one started in every trial and
confirmation leg. Each self-test still measures the client against it (10 requests, its log
cleared first), and the simulator is stopped with the block that holds it. A tune's
reports each carrying one, and no simulator left after the tune:
tests/integration/test_tune_confirm.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.latency.selftest import QUICK, quick_calibration, quick_simulator

pytestmark = pytest.mark.timeout(120)


def quick_simulators_of_this_process() -> list[int]:
    """Children of this process that run the quick self-test's simulator."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        words = [a.decode(errors="replace") for a in argv]
        if ppid == os.getpid() and "simulate" in words and "--output-tokens" in words:
            found.append(int(proc.name))
    return found


def test_a_held_simulator_serves_every_quick_self_test_and_is_stopped() -> None:
    with quick_simulator() as sim:
        pid = sim.pid
        first, second = quick_calibration(), quick_calibration()
        assert sim.pid == pid and sim.proc is not None and sim.proc.poll() is None
        assert first.requests == second.requests == QUICK.requests
        # the log is cleared before each self-test: only the last one's requests are in it
        assert len(sim.fetch_log()) == QUICK.requests
    assert sim.proc.poll() is not None
    assert quick_simulators_of_this_process() == []
