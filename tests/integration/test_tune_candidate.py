"""A candidate's process group: started, recorded, stopped by a later harness (--resume)
only when the recorded program still runs there."""

from __future__ import annotations

import json
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from harness.tune.launch import candidate

pytestmark = pytest.mark.timeout(60)

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_stop_recorded_kills_the_group_a_killed_harness_left(tmp_path: Path) -> None:
    cand = candidate.start(SLEEPER, {}, "http://127.0.0.1:1", tmp_path, grace_s=1.0)
    record = json.loads((tmp_path / candidate.RECORD).read_text())
    assert record["pgid"] == cand.pgid and record["argv"] == SLEEPER
    assert candidate.group_alive(cand.pgid)
    assert candidate.stop_recorded(tmp_path, grace_s=1.0) == cand.pgid
    cand.proc.wait(timeout=10)
    assert not candidate.group_alive(cand.pgid)
    assert candidate.stop_recorded(tmp_path) is None  # gone: nothing to stop


def test_a_reused_pid_running_another_program_is_left_alone(tmp_path: Path) -> None:
    cand = candidate.start(SLEEPER, {}, "http://127.0.0.1:1", tmp_path, grace_s=1.0)
    try:
        record = json.loads((tmp_path / candidate.RECORD).read_text())
        record["argv"] = ["vllm", "serve", "/models/q"]  # what the killed harness had started
        (tmp_path / candidate.RECORD).write_text(json.dumps(record))
        assert candidate.stop_recorded(tmp_path) is None
        assert candidate.group_alive(cand.pgid)
    finally:
        cand.stop()
    assert not candidate.group_alive(cand.pgid)


def test_exits_before_ready_is_failed_to_start_with_its_log(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; print('CUDA out of memory'); sys.exit(3)"]
    cand = candidate.start(argv, {}, "http://127.0.0.1:1", tmp_path, grace_s=1.0)
    try:
        with pytest.raises(candidate.StartFailed) as err:
            candidate.wait_ready(cand, "/ping", timeout_s=30)
    finally:
        cand.stop()
    assert err.value.why == "exited" and "code 3" in err.value.message
    assert "CUDA out of memory" in err.value.log_tail


def test_same_program_through_a_shebang() -> None:
    argv = ["harness", "simulate", "--port", "9"]
    seen = ["/venv/bin/python", "/venv/bin/harness", "simulate", "--port", "9"]
    assert candidate.same_program(seen, argv)
    assert not candidate.same_program(["/bin/sleep", "9"], argv)


def test_stop_returns_once_the_leader_exits_not_after_the_grace(tmp_path: Path) -> None:
    """An exited leader we have not reaped still counts in its group: stop reaps it, so a
    server that obeys SIGTERM is not waited for the whole grace period (30 s here)."""
    cand = candidate.start(SLEEPER, {}, "http://127.0.0.1:1", tmp_path, grace_s=30.0)
    t0 = time.monotonic()
    cand.stop()
    assert time.monotonic() - t0 < 10.0
    assert cand.proc.returncode == -signal.SIGTERM
    assert not candidate.group_alive(cand.pgid)


def test_a_server_without_the_ready_route_fails_to_start_in_seconds(tmp_path: Path) -> None:
    """A 404 on the ready path for 10 s in a row cannot heal: not the whole ready_timeout_s."""
    port = candidate.free_port()
    argv = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"]
    argv += ["--directory", str(tmp_path)]
    cand = candidate.start(argv, {}, f"http://127.0.0.1:{port}", tmp_path, grace_s=1.0)
    t0 = time.monotonic()
    try:
        with pytest.raises(candidate.StartFailed) as err:
            candidate.wait_ready(cand, "/ping", timeout_s=600)
    finally:
        cand.stop()
    assert time.monotonic() - t0 < 30
    # 10 s on an idle machine, a second more on a loaded one: never the whole ready_timeout_s
    assert re.search(r"answered HTTP 404 for 1[0-4] s", err.value.message), err.value.message


def test_a_host_name_that_does_not_resolve_fails_to_start_at_once(tmp_path: Path) -> None:
    cand = candidate.start(SLEEPER, {}, "http://nosuch.invalid:9", tmp_path, grace_s=1.0)
    t0 = time.monotonic()
    try:
        with pytest.raises(candidate.StartFailed) as err:
            candidate.wait_ready(cand, "/ping", timeout_s=600)
    finally:
        cand.stop()
    assert time.monotonic() - t0 < 20
    assert "does not resolve" in err.value.message


def test_an_interruption_inside_start_stops_the_group_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C / SIGTERM (harness/cli/signals.py raises KeyboardInterrupt) after the process
    started and its record was written but before the caller holds the candidate: start
    itself stops the group (the window a SIGTERM right after ``candidate.json`` hit)."""
    started: list[int] = []

    def interrupted(pgid: int, grace_s: float) -> object:
        started.append(pgid)
        raise KeyboardInterrupt

    monkeypatch.setattr(candidate.GroupWatch, "start", staticmethod(interrupted))
    with pytest.raises(KeyboardInterrupt):
        candidate.start(SLEEPER, {}, "http://127.0.0.1:1", tmp_path, grace_s=1.0)
    assert json.loads((tmp_path / candidate.RECORD).read_text())["pgid"] == started[0]
    assert not candidate.group_alive(started[0])
