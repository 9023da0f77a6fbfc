"""Child processes that never outlive harness.

A server harness starts for itself (a tuning candidate, the self-test's simulator) must
not keep running when harness is killed, even by SIGKILL, which runs no cleanup: the
child asks the kernel to send it SIGKILL when its parent dies (Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import signal
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
