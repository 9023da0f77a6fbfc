"""SIGTERM takes Ctrl-C's path: what was measured is saved, then exit 143.

A job scheduler, ``timeout`` or ``docker stop`` ends a run with SIGTERM. Every
core already saves its partial report on Ctrl-C (KeyboardInterrupt, or the
CancelledError that ``asyncio.run`` turns SIGINT into), and the submit state
file is written before each call it announces. So SIGTERM is not given a path
of its own: :func:`sigterm_as_interrupt` makes it do exactly what SIGINT does at that
moment, and :func:`main` (harness/cli/__init__.py) maps the interrupted exit to
143 (128 + SIGTERM) when SIGTERM was the cause (docs/architecture.md, "Signals").

"What SIGINT does at that moment": inside ``asyncio.run`` that is the runner's
handler, which cancels the main task so its ``finally`` blocks run on the loop;
elsewhere Python's default handler, which raises KeyboardInterrupt. When SIGINT
is ignored (a job started in the background: ``nohup … &``) SIGTERM still stops
the run, by raising KeyboardInterrupt itself.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, the shell's convention


class _Seen:
    term = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    _Seen.term = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler) and handler is not signal.default_int_handler:
        # asyncio.run's own SIGINT handler: it cancels the main task (a second
        # signal raises KeyboardInterrupt, like a second Ctrl-C).
        handler(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM → the Ctrl-C path while the command runs; the old handler back afterwards
    (``main`` is also called in-process, by tests and tools)."""
    _Seen.term = False
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def terminated() -> bool:
    """True once a SIGTERM arrived in this process."""
    return _Seen.term
