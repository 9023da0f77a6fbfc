"""Child processes that never outlive harness.

A server harness starts for itself (a tuning candidate, the self-test's simulator) must
not keep running when harness is killed, even by SIGKILL, which runs no cleanup: the
child asks the kernel to send it SIGKILL when its parent dies (Linux ``PR_SET_PDEATHSIG``).
That reaches the child only; a server with processes of its own (vLLM's engine core) also
gets a :class:`GroupWatch`, which stops its whole process group when harness dies.
"""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys

_PR_SET_PDEATHSIG = 1
# looked up here, in the parent: between fork and exec the child only calls it (a dlopen
# there could wait forever on a loader lock another thread held at the fork)
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def die_with_parent() -> None:
    """``preexec_fn``: SIGKILL this child when the harness that started it dies (Linux;
    elsewhere nothing, and the caller's own stop is the only one)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


# The watcher's program (python -I -S -c): it blocks reading its stdin, a pipe whose only
# writer is the process that started it. "done" means the group was stopped in order; end
# of file without it means that process died (kill -9 included: the kernel closes the
# pipe), so the watcher stops the group: SIGTERM, then SIGKILL after the grace.
_WATCH = """
import os, signal, sys, time
pgid, grace = int(sys.argv[1]), float(sys.argv[2])
if sys.stdin.buffer.read().startswith(b"done"):
    sys.exit(0)
def alive():  # a member that is not a zombie (an orphan's zombie may wait for its reaper)
    try:
        names = os.listdir("/proc")
    except OSError:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for name in names:
        if name.isdigit():
            try:
                with open("/proc/" + name + "/stat") as stat:
                    rest = stat.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(rest[2]) == pgid and rest[0] != "Z":
                return True
    return False
try:
    os.killpg(pgid, signal.SIGTERM)
except ProcessLookupError:
    sys.exit(0)
deadline = time.monotonic() + grace
while alive() and time.monotonic() < deadline:
    time.sleep(0.1)
if alive():
    os.killpg(pgid, signal.SIGKILL)
"""


class GroupWatch:
    """A small process that stops process group ``pgid`` when this process dies.

    ``PR_SET_PDEATHSIG`` reaches only the direct child: vLLM's engine processes, the
    leader's children, were left running (holding the accelerator) after a ``kill -9`` of
    harness. The watcher runs in its own session (a Ctrl-C to the terminal does not reach
    it) and waits on a pipe only this process writes; :meth:`release` after an orderly stop
    lets it exit without touching the group, whose id may be reused later."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self._proc = proc

    @classmethod
    def start(cls, pgid: int, grace_s: float = 10.0) -> GroupWatch:
        argv = [sys.executable, "-I", "-S", "-c", _WATCH, str(pgid), str(grace_s)]
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        return cls(proc)

    @property
    def pid(self) -> int:
        return self._proc.pid

    def release(self) -> None:
        """The group was stopped in order: the watcher exits and leaves it alone."""
        stdin = self._proc.stdin
        if stdin is not None and not stdin.closed:
            try:
                stdin.write(b"done")
                stdin.close()
            except BrokenPipeError:
                pass  # the watcher is gone already: nothing to tell it
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
