"""The console for output that goes to a pipe or a file: tables as wide as their cells.

A terminal has a width, and ``COLUMNS`` names one (rich reads it); a pipe has none.
Rich then assumes 80 columns and cuts cells ('20.…', 'INCOMPLE…') or drops a column.
:class:`FittedConsole` keeps lines, panels and rules at a fixed base width but prints
each table at the width its widest row needs, so ``harness report | less`` and a CI
log show every cell whole (docs/report.md, "Console width").

A reader that goes away (``harness report DIR | head -2``) closes the pipe: rich's
console then ends the process with exit 1, FAIL's code. Every console here drops the
rest of its output instead (:func:`drop_closed_output`), so the command ends with its
own exit code (docs/report.md, "Console width").
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from rich.console import Console
from rich.table import Table

PIPE_WIDTH = 120  # lines, panels and rules when no terminal and no COLUMNS say otherwise
_UNBOUNDED = 100_000  # what a table is measured against: wider than any real table


def drop_closed_output(stream: IO[str] | None = None) -> None:
    """Point ``stream``'s file descriptor (stdout's by default) at /dev/null: its reader is
    gone, and what is still written, and flushed at exit, goes nowhere without an error."""
    target = stream if stream is not None else sys.stdout
    try:
        fd = target.fileno()
    except (OSError, ValueError):  # not a file (a StringIO in a test): nothing to point
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class ReaderGoneConsole(Console):
    """rich's console, which keeps going when its reader closes the pipe."""

    def on_broken_pipe(self) -> None:
        if not self.quiet:
            drop_closed_output(self.file)


class FittedConsole(ReaderGoneConsole):
    """A console with no terminal width: a table wider than :data:`PIPE_WIDTH` gets the
    width it needs, so no cell is cut or folded."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if kwargs.get("width") is None and len(objects) == 1 and isinstance(objects[0], Table):
            need = self.measure(objects[0], options=self.options.update_width(_UNBOUNDED))
            if need.maximum > self.width:
                # print(width=) only narrows (rich takes the smaller): widen the console itself
                base = self.width
                self.width = need.maximum
                try:
                    super().print(*objects, **kwargs)
                finally:
                    self.width = base
                return
        super().print(*objects, **kwargs)


def columns_from_env() -> int | None:
    """``COLUMNS`` when it names a width (rich honours it too), else None."""
    text = os.environ.get("COLUMNS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def console_for(stream: IO[str], *, quiet: bool = False) -> Console:
    """A terminal or a ``COLUMNS`` width: rich's console at that width; else a pipe or a
    file: a :class:`FittedConsole`."""
    if stream.isatty() or columns_from_env() is not None:
        return ReaderGoneConsole(
            file=stream, quiet=quiet, highlight=False, width=columns_from_env()
        )
    return FittedConsole(file=stream, quiet=quiet, highlight=False, width=PIPE_WIDTH)
