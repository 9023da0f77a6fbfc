"""A server's whole process group is stopped when the harness that started it dies
(harness/children.py: GroupWatch): PR_SET_PDEATHSIG reaches the leader only, and vLLM's
engine core, the leader's child, was seen left running after a kill -9 of harness."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.children import GroupWatch
from tests.fixtures.procs import alive

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

# A leader (in its own session, as servers are started) with a child of its own, like
# vLLM's API server and its engine core; prints the child's pid.
LEADER = (
    "import subprocess, sys, time\n"
    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
    "print(c.pid, flush=True)\n"
    "time.sleep(120)\n"
)


def _gone_within(pids: list[int], seconds: float) -> bool:
    end = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.1)
    return not any(alive(p) for p in pids)


def test_a_killed_harness_leaves_no_member_of_the_group() -> None:
    """The middle process plays harness: it starts the leader as servers are started
    (own session, PDEATHSIG) and a GroupWatch, then is killed with SIGKILL."""
    harness = (
        "import subprocess, sys, time\n"
        "from harness.children import GroupWatch, die_with_parent\n"
        f"leader = subprocess.Popen([sys.executable, '-c', {LEADER!r}], stdout=subprocess.PIPE,"
        " text=True, start_new_session=True, preexec_fn=die_with_parent)\n"
        "GroupWatch.start(leader.pid, 2.0)\n"
        "print(leader.pid, leader.stdout.readline().strip(), flush=True)\n"
        "time.sleep(120)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-c", harness], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    leader, child = (int(x) for x in proc.stdout.readline().split())
    assert alive(leader) and alive(child)
    proc.kill()
    proc.wait()
    assert _gone_within([leader, child], 15), "a member of the server's group outlived harness"


def test_release_after_an_orderly_stop_leaves_the_group_alone() -> None:
    """release(): the watcher exits at once and signals nothing (the group's id could
    belong to another group by then)."""
    leader = subprocess.Popen(
        [sys.executable, "-c", LEADER], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    assert leader.stdout is not None
    child = int(leader.stdout.readline())
    watch = GroupWatch.start(leader.pid, 1.0)
    try:
        t0 = time.monotonic()
        watch.release()
        assert time.monotonic() - t0 < 5
        assert not alive(watch.pid)
        time.sleep(1.5)
        assert alive(leader.pid) and alive(child)  # untouched
    finally:
        os.killpg(leader.pid, signal.SIGKILL)
        leader.wait()
    assert _gone_within([child], 10)
