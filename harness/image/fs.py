"""The image's file tree as the container sees it, and whether its entrypoint is in it.

A container that cannot start is the most expensive failure there is: the
grader polls ``/ping`` for ten minutes and the day's submission is spent. So
``harness package`` finds the program the container would execute and checks
that it exists in the merged layers:

- the program is ENTRYPOINT[0], or CMD[0] when there is no ENTRYPOINT (a
  shell-form instruction is stored as ``/bin/sh -c …``, so it needs /bin/sh);
- a bare name (``python``) is looked up in the image's PATH (its ``Env``, else
  Docker's default); a relative path is taken from the working directory;
- layers are applied bottom-up with whiteouts (``.wh.NAME``) and opaque
  directories (``.wh..wh..opq``); symlinks are followed inside the image, in
  every component (``/bin`` → ``usr/bin`` in merged-/usr distributions),
  relative or absolute, at most 40 times like the kernel;
- a directory, or a path that leads nowhere, is not a program.

Not checked: the exec bit, and a script's ``#!`` interpreter (the program's
bytes are not kept).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_MAX_LINKS = 40  # the kernel's limit on symlinks followed in one lookup

# What a tree entry is: "f" a file (regular, hard link, device…), "d" a directory,
# or "l:TARGET" a symlink to TARGET as written in the layer.
FILE, DIR = "f", "d"


def link(target: str) -> str:
    return "l:" + target


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


@dataclass(frozen=True)
class ProgramCheck:
    program: str  # what the container executes first, as written (argv[0])
    found: str | None  # where it leads in the image; None when it is not there
    problem: str  # one line when not found, else ""


def program_of(entrypoint: list[str], cmd: list[str]) -> str | None:
    """argv[0] of the container: ENTRYPOINT's first element, else CMD's."""
    argv = entrypoint or cmd
    return argv[0] if argv else None


def check_program(
    entrypoint: list[str], cmd: list[str], env: list[str], workdir: str, tree: dict[str, str]
) -> ProgramCheck | None:
    """Is the container's program in the image? None when there is no program to check."""
    program = program_of(entrypoint, cmd)
    if not program:
        return None
    source = "ENTRYPOINT" if entrypoint else "CMD"
    if "/" in program:
        candidates = [posixpath.join(workdir or "/", program)]
    else:
        path_var = next((e[5:] for e in env if e.startswith("PATH=")), DEFAULT_PATH)
        candidates = [posixpath.join(d or ".", program) for d in path_var.split(":")]
        candidates = [
            c if c.startswith("/") else posixpath.join(workdir or "/", c) for c in candidates
        ]
    why = ""
    for candidate in candidates:
        found, why = resolve(candidate, tree)
        if found is not None and tree.get(found.lstrip("/")) == DIR:
            found, why = None, f"{found} is a directory"
        if found is not None:
            return ProgramCheck(program=program, found=found, problem="")
    where = (
        why
        if "/" in program
        else f"not in PATH ({', '.join(c.rsplit('/', 1)[0] for c in candidates)})"
    )
    return ProgramCheck(
        program=program,
        found=None,
        problem=f"{source} runs {program}, but the image has no such program ({where})",
    )
