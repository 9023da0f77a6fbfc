"""SimProcess: `python -m harness simulate` in a subprocess on a free port.

A separate process keeps the simulator off the client's event loop and CPU
thread, so a benchmark measures the client, not the two sharing one loop.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from harness.children import die_with_parent
from harness.errors import UnreachableError
from harness.simulate.config import SimConfig
from harness.simulate.flags import SimOverrides
from harness.simulate.log import LogEntry

_READY = re.compile(r"listening on (http://(?:[\d.]+|\[[0-9a-fA-F:.]+\]):\d+)")


class SimProcess:
    """``with SimProcess(cfg) as sim:`` → ``sim.url``, ``sim.fetch_log()``; ``stop()`` always by pid."""

    def __init__(
        self,
        cfg: SimConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        ready_timeout_s: float = 30.0,
        python: str = sys.executable,
        popen_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.cfg = cfg or SimConfig()
        self.host = host
        self.port = port
        self.ready_timeout_s = ready_timeout_s
        self.python = python
        # extra Popen arguments (tests that send SIGINT restore its default disposition)
        self.popen_kwargs = dict(popen_kwargs or {})
        self.url = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self.output: deque[str] = deque(maxlen=200)  # the process's last lines (stdout+stderr)
        self._ready = threading.Event()
        self._drainer: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def argv(self) -> list[str]:
        return [
            self.python,
            "-m",
            "harness",
            "simulate",
            "--host",
            self.host,
            "--port",
            str(self.port),
            *SimOverrides.of(self.cfg).argv(),
        ]

    def start(self) -> SimProcess:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        kwargs: dict[str, Any] = {"preexec_fn": die_with_parent, **self.popen_kwargs}
        self.proc = subprocess.Popen(
            self.argv(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            **kwargs,
        )
        # A thread keeps draining the pipe for the process's whole life: a full pipe
        # would block the simulator on its next log line.
        self._drainer = threading.Thread(target=self._drain, args=(self.proc,), daemon=True)
        self._drainer.start()
        try:
            ready = self._ready.wait(self.ready_timeout_s)
        except BaseException:  # Ctrl-C or SIGTERM while it starts: no simulator left behind
            self.stop()
            raise
        if ready and self.url:
            return self
        self.stop()
        raise UnreachableError(
            f"simulator process did not start within {self.ready_timeout_s:.0f} s",
            hint=" | ".join(list(self.output)[-3:]) or "no output",
        )

    def _drain(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip()
            self.output.append(line)
            match = _READY.search(line)
            if match and not self.url:
                self.url = match.group(1)
                self._ready.set()
        proc.stdout.close()
        self._ready.set()  # the process ended: stop waiting

    def _call(self, method: str, path: str) -> Any:
        req = urllib.request.Request(self.url + path, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return json.loads(resp.read())
        except (urllib.error.URLError, OSError) as err:
            raise UnreachableError(
                f"simulator at {self.url} did not answer {path}: {err}"
            ) from None

    def fetch_log(self, since: int = 0) -> list[LogEntry]:
        data = self._call("GET", f"/_sim/log?since={since}")
        return [LogEntry.from_dict(d) for d in data["entries"]]

    def clear_log(self) -> None:
        self._call("DELETE", "/_sim/log")

    def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()  # SIGTERM to this pid only
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        if self._drainer is not None:
            self._drainer.join(timeout=5)  # it ends at EOF and closes the pipe

    def __enter__(self) -> SimProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
