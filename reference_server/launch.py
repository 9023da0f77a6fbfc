"""Start and stop the reference server from Python (e2e fixture, ``harness demo``, quality tests).

::

    with ServerProcess.start(recipe="cpu", model_dir=ensure_test_model()) as server:
        server.wait_ready(timeout_s=180)
        ... talk to server.url ...

The server runs as ``python -m reference_server`` in a new session, which execs
vLLM in place: its process id is the process group id, and vLLM's engine
processes are in that group too. ``stop()`` signals the group by that id
(SIGTERM, then SIGKILL after a bounded wait), so nothing outlives it. If the process
that started it dies without ``stop()`` (kill -9), vLLM gets SIGKILL from the kernel
(``PR_SET_PDEATHSIG``) and a watcher process stops the rest of its group
(harness/children.py: ``GroupWatch``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO

from harness.children import GroupWatch, die_with_parent
from harness.errors import UnreachableError
from reference_server.recipes import get_recipe


def free_port(host: str = "127.0.0.1") -> int:
    """A port the OS says is free now (it could be taken before vLLM binds it; rare)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


@dataclass
class ServerProcess:
    """A running reference server: ``url``, ``model_dir``, ``log_path``, ``pid``."""

    process: subprocess.Popen[bytes]
    url: str
    port: int
    model_dir: Path
    log_path: Path
    started_at: float  # time.monotonic() at launch
    ready_after_s: float | None = None
    _log_file: IO[bytes] | None = field(default=None, repr=False)
    # stops the whole group (vLLM's engine core too) if this process dies without stop()
    _watch: GroupWatch | None = field(default=None, repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid

    @classmethod
    def start(
        cls,
        recipe: str = "cpu",
        model_dir: str | Path | None = None,
        *,
        port: int = 0,
        host: str = "127.0.0.1",
        log_path: str | Path | None = None,
        extra_args: Sequence[str] = (),
    ) -> ServerProcess:
        """Launch (does not wait): ``port=0`` picks a free port; the log goes to ``log_path``
        (default: a new temporary file). ``model_dir=None`` uses the recipe's default."""
        get_recipe(recipe)  # unknown names fail here, before a process exists
        if model_dir is None:
            if recipe != "cpu":
                raise ValueError(f"recipe {recipe!r} needs model_dir")
            from reference_server.build_test_model import ensure_test_model

            model_dir = ensure_test_model()
        model = Path(model_dir)
        if port == 0:
            port = free_port(host)
        if log_path is None:
            fd, name = tempfile.mkstemp(prefix="reference-server-", suffix=".log")
            os.close(fd)
            log_path = name
        log = Path(log_path)
        log.parent.mkdir(parents=True, exist_ok=True)
        argv = [
            sys.executable,
            "-m",
            "reference_server",
            "--recipe",
            recipe,
            "--model",
            str(model),
            "--host",
            host,
            "--port",
            str(port),
            *extra_args,
        ]
        log_file = log.open("ab")
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, killed as one
                # SIGKILLed by the kernel when this process dies, even by kill -9 (Linux;
                # kept across the execve into vLLM): a killed harness leaves no server
                preexec_fn=die_with_parent,
            )
        except OSError:
            log_file.close()
            raise
        watch = GroupWatch.start(proc.pid)
        url_host = f"[{host}]" if ":" in host else host
        return cls(
            process=proc,
            url=f"http://{url_host}:{port}",
            port=port,
            model_dir=model,
            log_path=log,
            started_at=time.monotonic(),
            _log_file=log_file,
            _watch=watch,
        )

    def wait_ready(self, timeout_s: float = 180.0, poll_s: float = 0.5) -> float:
        """Poll ``/ping`` until 200; return seconds from launch to ready.

        Raises ``UnreachableError`` (with the last log lines) if the process exits
        or ``timeout_s`` passes first. The process is left running on timeout:
        the caller stops it (``with`` does).
        """
        deadline = time.monotonic() + timeout_s
        while True:
            code = self.process.poll()
            if code is not None:
                raise UnreachableError(
                    f"reference server exited with code {code} before /ping answered; "
                    f"log {self.log_path}:\n{tail(self.log_path)}",
                    hint="read the log above",
                )
            if self._ping():
                self.ready_after_s = time.monotonic() - self.started_at
                return self.ready_after_s
            if time.monotonic() >= deadline:
                raise UnreachableError(
                    f"reference server not ready after {timeout_s:.0f} s ({self.url}/ping); "
                    f"log {self.log_path}:\n{tail(self.log_path)}",
                    hint="a slow machine may need a longer timeout",
                )
            time.sleep(poll_s)

    def _ping(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/ping", timeout=2.0) as resp:
                return int(resp.status) == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False  # not listening yet, or still loading (vLLM answers 503)

    def stop(self, timeout_s: float = 30.0) -> int | None:
        """SIGTERM the process group, SIGKILL it after ``timeout_s``; return the exit code."""
        try:
            if self.process.poll() is None:
                self._signal_group(signal.SIGTERM)
                try:
                    self.process.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    self._signal_group(signal.SIGKILL)
                    self.process.wait(timeout=10.0)
            # The leader may be gone while engine workers linger: clear the group too.
            self._signal_group(signal.SIGKILL)
        finally:
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None
            if self._watch is not None:
                self._watch.release()
                self._watch = None
        return self.process.returncode

    def _signal_group(self, sig: signal.Signals) -> None:
        # pgid == pid (started with a new session); lookup errors mean the group is empty
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
