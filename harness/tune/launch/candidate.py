"""One candidate server: started in its own process group on a free port, waited for,
stopped with nothing left running.

The child gets ``PR_SET_PDEATHSIG`` (SIGKILL) on Linux, so a ``kill -9`` of harness
takes it down; its process group id is recorded in the trial's folder
(``candidate.json``) before anything is measured, so ``harness tune --resume`` can stop
whatever a killed harness left behind (:func:`stop_recorded`).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harness.children import GroupWatch, die_with_parent
from harness.errors import HarnessError

RECORD = "candidate.json"
LOG = "server.log"
# the ready path answered 404 this long in a row: the server has no such route, and waiting
# the rest of ready_timeout_s would not give it one (as harness/client/readiness.py)
NO_ROUTE_GIVE_UP_S = 10.0


class StartFailed(HarnessError):
    """The candidate exited, or never answered, before it was ready."""

    def __init__(self, message: str, *, why: str, log_tail: str) -> None:
        super().__init__(message)
        self.why = why  # "exited" | "not ready" | "taken" (another server at its URL)
        self.log_tail = log_tail


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def log_tail(path: Path, lines: int = 20) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid: int, grace_s: float, reap: Callable[[], object] | None = None) -> None:
    """SIGTERM the group, then SIGKILL what is left after ``grace_s``; returns once it is gone
    (or 5 s after the SIGKILL). ``reap``: collect the leader when it is our child (an
    exited, unreaped leader still counts as a member of its group)."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait_s
        while time.monotonic() < end:
            if reap is not None:
                reap()
            if not group_alive(pgid):
                return
            time.sleep(0.05)


@dataclass
class Candidate:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path
    grace_s: float
    _log_file: IO[bytes]
    # stops the whole group (an engine's own processes too) if harness dies without stop()
    _watch: GroupWatch | None = None

    @property
    def pgid(self) -> int:
        return self.proc.pid  # start_new_session: the leader's pid is the group's id

    def poll(self) -> int | None:
        """The leader's exit code once its whole process group is gone, else None (a
        launcher that exits and leaves its server running in the group is alive)."""
        code = self.proc.poll()  # reaps the leader: an unreaped one counts in the group
        if code is None or group_alive(self.pgid):
            return None
        return code

    def tail(self) -> str:
        return log_tail(self.log)

    def wait_ready(self, path: str, timeout_s: float) -> float:
        return wait_ready(self, path, timeout_s)

    def stop(self) -> None:
        kill_group(self.pgid, self.grace_s, reap=self.proc.poll)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log_file.close()
        if self._watch is not None:
            self._watch.release()
            self._watch = None


def start(
    argv: list[str], env: Mapping[str, str], url: str, folder: Path, grace_s: float
) -> Candidate:
    """Start the candidate (own process group, output to ``folder/server.log``) and record
    its pid and process group in ``folder/candidate.json``."""
    log = folder / LOG
    out = log.open("ab")
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env},
            start_new_session=True,
            preexec_fn=die_with_parent,  # the point: it dies with harness
        )
    except OSError as err:
        out.close()
        raise StartFailed(
            f"cannot start {argv[0]}: {err.strerror or type(err).__name__}",
            why="exited",
            log_tail="",
        ) from None
    try:
        record = {"pid": proc.pid, "pgid": proc.pid, "argv": argv, "url": url}
        (folder / RECORD).write_text(json.dumps(record, indent=2), encoding="utf-8")
        return Candidate(proc, url, log, grace_s, out, GroupWatch.start(proc.pid, grace_s))
    except BaseException:  # Ctrl-C / SIGTERM before the caller holds it: nobody else stops it
        kill_group(proc.pid, grace_s, reap=proc.poll)
        out.close()
        raise


def wait_ready(cand: Candidate, path: str, timeout_s: float) -> float:
    """Seconds until ``url + path`` answers 200; StartFailed if it exits or times out."""
    return poll_ready(
        cand.url.rstrip("/") + path,
        timeout_s,
        exited=lambda: (
            None
            if (rc := cand.poll()) is None
            else f"failed to start: exited with code {rc} before it was ready"
        ),
        tail=lambda: log_tail(cand.log),
    )


def poll_ready(
    url: str, timeout_s: float, *, exited: Callable[[], str | None], tail: Callable[[], str]
) -> float:
    """Seconds until ``url`` answers 200, polled every 0.2 s; :class:`StartFailed` once
    ``exited`` says why the candidate is gone (a process, a container) or after
    ``timeout_s``, with ``tail`` of its log. A 200 counts only while the candidate is alive
    (harness/tune/launch/own.py): from a dead candidate it came from another server."""
    t0 = time.monotonic()
    since_404: float | None = None
    while True:
        gone = exited()
        if gone is not None:
            raise StartFailed(gone, why="exited", log_tail=tail())
        try:
            with urllib.request.urlopen(url, timeout=2.0) as resp:
                if resp.status == 200:
                    waited = time.monotonic() - t0
                    gone = exited()
                    if gone is not None:
                        raise StartFailed(
                            f"{gone}; the answer at {url} came from another server",
                            why="exited",
                            log_tail=tail(),
                        )
                    return waited
        except urllib.error.HTTPError as err:
            now = time.monotonic()
            since_404 = (since_404 or now) if err.code == 404 else None
            if since_404 is not None and now - since_404 >= NO_ROUTE_GIVE_UP_S:
                raise StartFailed(
                    f"failed to start: {url} answered HTTP 404 for {now - since_404:.0f} s: "
                    "the server there has no such route (the profile's ready path)",
                    why="not ready",
                    log_tail=tail(),
                ) from None
        except urllib.error.URLError as err:
            if isinstance(err.reason, socket.gaierror):  # a name that does not resolve
                raise StartFailed(
                    f"failed to start: {url}: its host name does not resolve ({err.reason})",
                    why="not ready",
                    log_tail=tail(),
                ) from None
        except (OSError, ValueError):
            pass
        if time.monotonic() - t0 > timeout_s:
            raise StartFailed(
                f"failed to start: {url} not ready after {timeout_s:.0f} s",
                why="not ready",
                log_tail=tail(),
            )
        time.sleep(0.2)


def _cmdline(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def same_program(seen: list[str], argv: list[str]) -> bool:
    """``/proc/PID/cmdline`` is the recorded argv (a script started through its shebang
    shows its interpreter first: ``python /path/harness …`` for ``harness …``)."""
    if seen == argv:
        return True
    k = len(seen) - len(argv) + 1
    if k < 1 or seen[k:] != argv[1:]:
        return False
    name = os.path.basename(argv[0])
    return any(os.path.basename(a) == name for a in seen[:k])


def stop_recorded(folder: Path, grace_s: float = 5.0) -> int | None:
    """Stop the process group a killed harness recorded in ``folder`` if it still runs;
    returns the pgid it stopped, else None. A leader pid now running another program
    (reused) is left alone. (An image candidate's record: harness/tune/launch/__init__.py.)"""
    try:
        record = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    try:
        pgid = int(record["pgid"])
        argv = [str(a) for a in record["argv"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not group_alive(pgid):
        return None
    seen = _cmdline(pgid)
    if seen is not None and not same_program(seen, argv):
        return None
    kill_group(pgid, grace_s)
    return pgid
