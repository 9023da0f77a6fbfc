"""The simulator as a process: SimProcess, `harness simulate` flags, log file, exit codes."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from harness.simulate import SimConfig
from harness.simulate.process import SimProcess
from tests.fixtures.procs import alive
from tests.fixtures.signals import SIGINT_DEFAULT

pytestmark = pytest.mark.timeout(90)


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_sim_process_serves_logs_and_stops(sim_process: Any, tmp_path: Path) -> None:
    log_file = tmp_path / "sim.jsonl"
    sp = sim_process(ttft_ms=20, itl_ms=2, models=("m1",), log_file=str(log_file))
    assert sp.url.startswith("http://127.0.0.1:")
    sent = time.perf_counter_ns()
    body = post(sp.url + "/v1/completions", {"prompt": "hi", "max_tokens": 5, "model": "m1"})
    got = time.perf_counter_ns()
    assert body["model"] == "m1" and body["usage"]["completion_tokens"] == 5
    (entry,) = sp.fetch_log()
    # perf_counter_ns is CLOCK_MONOTONIC: the two processes' stamps are comparable.
    # "intended" (before the write call) is a strict bound; "written" (after it returned)
    # may come after the client already has the bytes if the server was descheduled.
    assert sent < entry.arrival_ns < entry.chunk_intended_ns[0] < got
    assert entry.chunk_intended_ns[0] <= entry.chunk_written_ns[0]
    assert entry.chunk_deadline_ns[0] - entry.arrival_ns == 28_000_000
    sp.clear_log()
    assert sp.fetch_log() == []
    sp.stop()
    assert sp.proc is not None and sp.proc.returncode == 0  # SIGTERM: clean exit
    lines = log_file.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["body"]["prompt"] == "hi"


def test_ctrl_c_exits_130() -> None:
    sp = SimProcess(SimConfig(), popen_kwargs=SIGINT_DEFAULT).start()
    try:
        assert sp.proc is not None
        sp.proc.send_signal(signal.SIGINT)
        assert sp.proc.wait(timeout=10) == 130
    finally:
        sp.stop()


def _run(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", "simulate", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_bad_flags_exit_2_with_one_line() -> None:
    r = _run("--error-rate", "2")
    assert r.returncode == 2 and "error_rate" in r.stderr and "Traceback" not in r.stderr
    r = _run("--disable-route", "/nope")
    assert r.returncode == 2 and "invalid choice" in r.stderr
    r = _run("--itl-ms", "fast")
    assert r.returncode == 2


def test_busy_port_exits_2() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = _run("--port", str(s.getsockname()[1]))
    assert r.returncode == 2 and "cannot listen" in r.stderr and "Traceback" not in r.stderr


def test_sim_process_that_cannot_start_says_why() -> None:
    from harness.errors import UnreachableError

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        sp = SimProcess(SimConfig(), port=s.getsockname()[1])
        with pytest.raises(UnreachableError, match="cannot listen"):
            sp.start()
    assert sp.proc is not None and sp.proc.returncode == 2


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_simulator_harness_started_dies_with_a_killed_harness(tmp_path: Path) -> None:
    """SimProcess's child (e.g. latency's self-test simulator) gets SIGKILL when the
    harness that started it is killed with SIGKILL, which runs no cleanup."""
    script = (
        "import time\n"
        "from harness.simulate.process import SimProcess\n"
        "sp = SimProcess().start()\n"
        "print(sp.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert child in _children(parent.pid)
    parent.kill()
    parent.wait()
    end = time.monotonic() + 10
    while alive(child) and time.monotonic() < end:
        time.sleep(0.1)
    assert not alive(child)


def test_an_ipv6_host_prints_a_url_harness_takes_back() -> None:
    """``--host ::1`` prints ``http://[::1]:PORT`` (it printed ``http://::1:PORT``, which
    every --url refuses); the URL answers and passes harness's URL check (issue 34)."""
    from harness.client.urls import http_base_url

    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "simulate", "--host", "::1", "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().strip()
        prefix = "harness simulate: listening on "
        assert line.startswith(prefix + "http://[::1]:"), line
        url = line.removeprefix(prefix)
        assert http_base_url(url) == url
        with urllib.request.urlopen(url + "/ping", timeout=10) as resp:
            assert resp.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
