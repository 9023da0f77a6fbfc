"""Where the archive is written: a path that cannot be written is a usage error, said early.

``harness package --output FILE`` (or the run folder's ``image.tar.gz``) is
checked before a byte is saved: the file is opened (as ``FILE.partial``) before
the engine's stream is read, so a folder that is a file, a folder nobody may
write to, or a FILE that is itself a folder fails at once, in one line, not
after minutes of saving.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import UsageError

_HINT = "pass --output a file path (ending in image.tar.gz) in a folder you can write to"


def _first_file_above(path: Path) -> Path | None:
    """The nearest ancestor of ``path`` that exists and is not a folder."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


@contextmanager
def output_errors(dest: Path) -> Iterator[None]:
    """An OSError raised while making or opening ``dest`` becomes one :class:`UsageError`."""
    try:
        yield
    except OSError as err:
        blocker = _first_file_above(dest)
        if err.errno in (errno.EEXIST, errno.ENOTDIR) and blocker is not None:
            why = f"{blocker} is a file, not a folder"
        elif err.errno == errno.EISDIR:
            why = f"{dest} is a folder"
        else:
            why = err.strerror or type(err).__name__
        raise UsageError(f"cannot write the archive to {dest}: {why}", hint=_HINT) from None


def prepare_output(dest: Path) -> None:
    """``dest``'s folder made (with its parents); a usage error where it cannot be."""
    with output_errors(dest):
        if dest.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a folder")
        dest.parent.mkdir(parents=True, exist_ok=True)
