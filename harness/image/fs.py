"""The image's file tree as the container sees it: every path, what it is, and links followed.

``harness package`` builds it from the layers (``harness/image/archive.py``) so that
``harness/image/program.py`` can say whether the container's program exists and can run:

- layers are applied bottom-up with whiteouts (``.wh.NAME``) and opaque
  directories (``.wh..wh..opq``); symlinks are followed inside the image, in
  every component (``/bin`` → ``usr/bin`` in merged-/usr distributions),
  relative or absolute, at most 40 times like the kernel;
- a regular file records what ``execve`` would make of it: no exec bit, a
  ``#!`` script (its first line, as the kernel reads it), or neither an ELF
  binary nor a script. Only files with an exec bit are read, and only their
  first bytes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

_MAX_LINKS = 40  # the kernel's limit on symlinks followed in one lookup

# What a tree entry is: "d" a directory; "l:TARGET" a symlink to TARGET as written in
# the layer; a file (regular, hard link, device…) is "f…":
#   "f"        executable (an ELF binary, or its contents were not read)
#   "f-"       no exec bit for anyone: execve says "permission denied"
#   "f?"       executable but neither ELF nor "#!": execve says "exec format error"
#   "f#!LINE"  an executable script; LINE is its first line (at most HEAD bytes)
FILE, DIR = "f", "d"
NOEXEC, NOT_PROGRAM = "f-", "f?"
SCRIPT = "f#!"
HEAD = 256  # the kernel reads this much of a file to decide how to run it (BINPRM_BUF_SIZE)
_ELF = b"\x7fELF"


def link(target: str) -> str:
    return "l:" + target


def file_kind(mode: int, head: bytes) -> str:
    """A regular file's tree entry from its mode bits and its first :data:`HEAD` bytes."""
    if not mode & 0o111:
        return NOEXEC
    if head.startswith(b"#!"):
        line = head[2:HEAD].split(b"\n", 1)[0]
        return SCRIPT + line.decode("utf-8", errors="replace")
    return FILE if head.startswith(_ELF) else NOT_PROGRAM


def is_file(kind: str | None) -> bool:
    return kind is not None and kind.startswith("f")


def shebang(kind: str | None) -> str | None:
    """A script's first line after ``#!`` (None: not a script)."""
    return kind[len(SCRIPT) :] if kind is not None and kind.startswith(SCRIPT) else None


def merge_tree(
    layers: Iterable[tuple[dict[str, str], list[str], list[str]]],
) -> dict[str, str]:
    """(entries, whiteouts, opaque dirs) per layer, bottom-up → the surviving entries.

    Paths have no leading slash (as in a layer tar). Directories that a layer
    only implies (a file under them, no entry of their own) are added with it."""
    merged: dict[str, str] = {}
    for entries, whiteouts, opaque in layers:
        if whiteouts or opaque:
            gone, hidden = set(whiteouts), set(opaque)
            # one pass, each path's ancestors looked up: not one pass per whiteout
            merged = {p: k for p, k in merged.items() if not _removed(p, gone, hidden)}
        merged.update(entries)
        for path in entries:
            parent = posixpath.dirname(path)
            while parent and parent not in merged:
                merged[parent] = DIR
                parent = posixpath.dirname(parent)
    return merged


def _removed(path: str, gone: set[str], hidden: set[str]) -> bool:
    """Deleted by a whiteout of it or of an ancestor, or under an opaque directory."""
    if path in gone:
        return True
    parent = posixpath.dirname(path)
    while parent:
        if parent in gone or parent in hidden:
            return True
        parent = posixpath.dirname(parent)
    return False


def resolve(path: str, tree: dict[str, str]) -> tuple[str | None, str]:
    """``path`` (absolute) followed through the tree: (the path it leads to, or None; why)."""
    todo = [c for c in path.split("/") if c not in ("", ".")]
    done: list[str] = []
    hops = 0
    while todo:
        comp = todo.pop(0)
        if comp == "..":
            if done:
                done.pop()
            continue
        here = "/".join([*done, comp])
        kind = tree.get(here)
        if kind is None:
            return None, f"/{here} does not exist"
        if kind.startswith("l:"):
            hops += 1
            if hops > _MAX_LINKS:
                return None, f"too many symlinks at /{here}"
            target = kind[2:]
            # an absolute target starts again from the image's root, never the host's
            head = [] if target.startswith("/") else done
            todo = [*[c for c in target.split("/") if c not in ("", ".")], *todo]
            done = list(head)
            continue
        if todo and kind != DIR:
            return None, f"/{here} is not a directory"
        done.append(comp)
    return "/" + "/".join(done), ""
