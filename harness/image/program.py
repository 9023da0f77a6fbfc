"""What the container executes first, and whether the kernel can run it from the image alone.

A container that cannot start is the most expensive failure there is: the
grader polls ``/ping`` for ten minutes and the day's submission is spent. So
``harness package`` finds the program the container would execute in the
merged layers (``harness/image/fs.py``) and follows what ``execve`` would do:

- the program is ENTRYPOINT[0], or CMD[0] when there is no ENTRYPOINT (a
  shell-form instruction is stored as ``/bin/sh -c …``, so it needs /bin/sh);
- a name with a slash is taken from the working directory; a bare name
  (``python``) is looked up in the image's PATH (its ``Env``, else Docker's
  default), skipping directories and files without an exec bit, as the
  runtime's lookup does;
- the program must have an exec bit, and be an ELF binary or a ``#!`` script;
- a script's interpreter (``#!interp [arg]``, read like the kernel: spaces and
  tabs around it dropped, a carriage return kept) must be in the image and
  runnable too, at most :data:`MAX_DEPTH` deep; ``#!/usr/bin/env NAME`` also
  needs NAME on the image's PATH. Without ``-S`` Linux hands env everything
  after the interpreter as one argument, so ``#!/usr/bin/env python3 -u``
  looks for a program called ``python3 -u``, as it does on the grader.

Not checked: which user runs it (any exec bit counts, as for root), and
binaries for another architecture (the ``platform`` rule says that).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from harness.image.fs import DIR, NOEXEC, NOT_PROGRAM, resolve, shebang

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MAX_DEPTH = 4  # nested interpreters (a script run by a script …) the kernel follows
_VALUE_OPTIONS = ("-u", "--unset", "-C", "--chdir")  # env options that take the next word


@dataclass(frozen=True)
class ProgramCheck:
    program: str  # what the container executes first, as written (argv[0])
    found: str | None  # where it leads in the image; None when it is not there
    problem: str  # one line when it cannot run, else ""
    interpreters: tuple[str, ...] = ()  # its #! chain, e.g. ("/bin/sh → /bin/busybox",)


def program_of(entrypoint: list[str], cmd: list[str]) -> str | None:
    """argv[0] of the container: ENTRYPOINT's first element, else CMD's."""
    argv = entrypoint or cmd
    return argv[0] if argv else None


def path_of(env: list[str]) -> str:
    """The PATH the container's process gets: the image's ``Env``, else Docker's default."""
    return next((e[5:] for e in env if e.startswith("PATH=")), DEFAULT_PATH)


def _at(path: str, workdir: str, tree: dict[str, str]) -> tuple[str | None, str]:
    """A path with a slash, from the working directory: where it leads, or why not."""
    found, why = resolve(posixpath.join(workdir, path), tree)
    if found is not None and tree.get(found.lstrip("/")) == DIR:
        return None, f"{found} is a directory"
    return found, why


def lookup(name: str, path_var: str, workdir: str, tree: dict[str, str]) -> tuple[str | None, str]:
    """Where the runtime (or ``env``) finds ``name``: (the file it leads to, or None; why)."""
    if "/" in name:
        return _at(name, workdir, tree)
    dirs = [posixpath.join(workdir, d or ".") for d in path_var.split(":")]
    skipped = ""
    for folder in dirs:
        found, _ = resolve(posixpath.join(folder, name), tree)
        kind = None if found is None else tree.get(found.lstrip("/"))
        if found is None or kind == DIR:
            continue
        if kind == NOEXEC:  # skipped by the lookup, which goes on to the next folder
            skipped = skipped or f"; {found} has no exec bit"
            continue
        return found, ""
    return None, f"not in PATH ({', '.join(dirs)}){skipped}"


def parse_shebang(line: str) -> tuple[str, str | None]:
    """``#!`` line (without the ``#!``) → (interpreter, its one optional argument), as Linux
    splits it: spaces and tabs only, so a carriage return stays part of the last word."""
    body = line.strip(" \t")
    cut = min((i for i in (body.find(" "), body.find("\t")) if i >= 0), default=len(body))
    arg = body[cut:].lstrip(" \t")
    return body[:cut], arg or None


def env_command(arg: str, path_var: str) -> tuple[str | None, str]:
    """What ``#!/usr/bin/env ARG`` runs: (the command, or None when env runs none; its PATH).

    Without ``-S`` ARG is one word to env, spaces and all; with it, ARG is split,
    options and ``NAME=VALUE`` assignments (a new PATH included) skipped."""
    if not arg.startswith(("-S", "--split-string")):
        return (None if arg.startswith("-") else arg), path_var
    words = arg.split()
    words[0] = words[0].removeprefix("--split-string").removeprefix("-S").lstrip("=")
    words = [w for w in words if w]
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
        elif word in _VALUE_OPTIONS:
            skip_next = True
        elif word.startswith("-"):
            continue
        elif "=" in word:
            if word.startswith("PATH="):
                path_var = word[5:]
        else:
            return word, path_var
    return None, path_var


def _arrow(written: str, found: str) -> str:
    return written if written == found else f"{written} → {found}"


def can_run(
    path: str, path_var: str, workdir: str, tree: dict[str, str], depth: int = 0
) -> tuple[str, list[str]]:
    """Whether ``path`` (a file of the tree) can be executed: ("" or why not; its #! chain)."""
    kind = tree.get(path.lstrip("/"))
    if kind == NOEXEC:
        return f"{path} is not executable (no exec bit: `chmod +x` it in the image)", []
    if kind == NOT_PROGRAM:
        return f"{path} is neither an ELF binary nor a #! script (exec format error)", []
    line = shebang(kind)
    if line is None:
        return "", []
    if depth >= MAX_DEPTH:
        return f"{path}: more than {MAX_DEPTH} nested #! interpreters", []
    interp, arg = parse_shebang(line)
    written = "#!" + line.rstrip(" \t")
    if not interp:
        return f"{path} starts with an empty #! line", []
    found, why = _at(interp, workdir, tree)
    if found is None:
        crlf = (
            f"; the line ends in a carriage return: save {path} with LF line ends"
            if interp.endswith("\r")
            else ""
        )
        return (
            f"{path}'s interpreter {interp.rstrip()} ({written.rstrip()}) is not in the image"
            f" ({why}){crlf}",
            [],
        )
    problem, chain = can_run(found, path_var, workdir, tree, depth + 1)
    chain = [_arrow(interp, found), *chain]
    if problem or posixpath.basename(interp) != "env" or arg is None:
        return problem, chain
    command, env_path = env_command(arg, path_var)
    if command is None:
        return "", chain
    target, why = lookup(command, env_path, workdir, tree)
    if target is None:
        split = (
            f"; Linux passes {command!r} to env as one word: `#!{interp} -S {command}`"
            if any(c in command for c in " \t")
            else ""
        )
        return (
            f"{path} runs `env {command}` ({written}), and {command} is not in the image"
            f" ({why}){split}",
            chain,
        )
    problem, more = can_run(target, env_path, workdir, tree, depth + 1)
    return problem, [*chain, _arrow(command, target), *more]


def check_program(
    entrypoint: list[str], cmd: list[str], env: list[str], workdir: str, tree: dict[str, str]
) -> ProgramCheck | None:
    """Can the container's program run from the image? None when there is no program."""
    program = program_of(entrypoint, cmd)
    if not program:
        return None
    source = "ENTRYPOINT" if entrypoint else "CMD"
    workdir = workdir or "/"
    path_var = path_of(env)
    found, why = lookup(program, path_var, workdir, tree)
    if found is None:
        return ProgramCheck(
            program=program,
            found=None,
            problem=f"{source} runs {program}, but the image has no such program ({why})",
        )
    problem, chain = can_run(found, path_var, workdir, tree)
    return ProgramCheck(
        program=program,
        found=found,
        problem=f"{source} runs {program}, but {problem}" if problem else "",
        interpreters=tuple(chain),
    )
