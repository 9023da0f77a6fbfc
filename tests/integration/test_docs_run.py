"""Docs that run: every code block in README.md and docs/*.md says what it is, and the
runnable ones run here against the simulator.

The line right before a block's fence (blank lines between allowed) is its marker,
``<!-- doc-run: KIND … -->``:

- ``run``: the block's commands run here, in order, in a folder of the test's own (so
  ``--out reports/a`` lands there), ``harness …`` in this process (``run_harness``).
  A ``harness simulate …`` line (``&``, or another terminal) starts that simulator (its own
  process, on a free port)
  and ``--url http://127.0.0.1:PORT`` names it; any other ``--url`` (``U``, ``URL``, ``…``,
  a port no line started) is the module's shared simulator. Other commands (``sed``) run
  through bash. Then ``exit N`` (default 0) is the last command's exit code (every
  earlier one 0), each ``shows "TEXT"`` is printed by a command AND shown in the block
  (the key lines of the doc's expected output), and each ``writes NAME`` is a file the
  commands wrote.
- ``file NAME``: the block is written to NAME in the folder of the next ``run`` block.
- ``space``: a SPACE.toml that ``harness tune`` accepts (read, not run).
- ``no, needs …``: not runnable here, with the reason (a GPU, vLLM, the network, …).
  Its ``harness`` commands are still parsed by harness's own argparse (nothing runs), so
  a removed flag or a renamed command fails here; a synopsis line (``[--flag N]``) has
  each of its flags looked up in the command's parser; a ``make TARGET`` needs the
  target in the Makefile, a ``python|bash|pytest PATH`` the path in the repository.
- ``synopsis``: a command's form (``[--flag N]``): parsed as above.
- ``output``: what a command printed; a command in it (``$ harness …``, or ``harness …``
  after a colon, as in ``resume with: harness …``) is parsed too.
- ``text``: not a command (code, a config fragment, a layout).

A block without a marker fails, and so does a command in a Markdown indented code block
(fence it and mark it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.cli import build_parser
from harness.cli.simulate import config_from_args
from harness.simulate.process import SimProcess
from tests.fixtures.wrong_invocation import REPO, Answer, run_harness

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
MARKER = re.compile(r"^<!-- doc-run: (.*) -->$")
FENCE = re.compile(r"^(\s*)(```+)(.*)$")
KINDS = ("run", "file", "space", "synopsis", "no", "output", "text")
PARSED = {"synopsis", "no", "output"}  # kinds whose commands are parsed, not run
PRINTED_COMMAND = re.compile(r"(?:^\$ |: )(harness [a-z].*)$")  # `resume with: harness …`
LOCAL_URL = re.compile(r"^http://127\.0\.0\.1:(\d+)$")
PLACEHOLDER_URLS = {"U", "URL", "…"}
INDENTED_COMMAND = re.compile(r"^ {4}(\$ )?(harness|python|pytest|bash|make) ")
ENV_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")


@dataclass
class Block:
    doc: Path
    line: int  # the fence's line, 1-based
    marker: str | None
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"

    @property
    def kind(self) -> str:
        head = (self.marker or "").split(";")[0].strip()
        return head.split(",")[0].split()[0] if head else ""

    @property
    def reason(self) -> str:
        """A ``no`` block's reason: the rest of its marker (``;`` and all)."""
        marker = self.marker or ""
        return marker.split(",", 1)[1].strip() if "," in marker else ""

    def option(self, name: str) -> list[str]:
        """The marker's ``NAME VALUE`` items (a quoted VALUE may hold ``;``)."""
        items = re.findall(rf"(?:^|;)\s*{name} (\"[^\"]*\"|[^;\s]+)", self.marker or "")
        return [v[1:-1] if v.startswith('"') else v for v in items]


def blocks(doc: Path) -> list[Block]:
    """Every fenced block of ``doc`` with the marker line before it."""
    found: list[Block] = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        indent, ticks = opened.group(1), opened.group(2)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(ticks):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        mark = MARKER.match(lines[k].strip()) if k >= 0 else None
        body = "\n".join(line.removeprefix(indent) for line in lines[i + 1 : j])
        found.append(Block(doc, i + 1, mark.group(1) if mark else None, body))
        i = j + 1
    return found


ALL = [b for doc in DOCS for b in blocks(doc)]


def indented_commands(doc: Path) -> list[str]:
    """``harness …`` lines in an indented code block (4 spaces after a blank line, outside
    a fence and a list): the marker cannot reach them."""
    out, fenced, prev = [], False, ""
    for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and not prev.strip() and INDENTED_COMMAND.match(line):
            out.append(f"{doc.relative_to(REPO)}:{n}")
        prev = line
    return out


# -- command lines -------------------------------------------------------------------


def command_lines(text: str) -> list[list[str]]:
    """The block's commands as argv lists: continuation lines joined, ``$ `` prompts and
    ``# comments`` dropped. In a transcript (a line starting ``$ ``) only the ``$`` lines
    are commands; else every line is."""
    joined: list[str] = []
    for raw in text.splitlines():
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + raw.strip()
        else:
            joined.append(raw.strip())
    transcript = any(line.startswith("$ ") for line in joined)
    argvs = []
    for line in joined:
        if transcript and not line.startswith("$ "):
            continue
        words = shlex.split(line.removeprefix("$ "), comments=True)
        if words:
            argvs.append(words)
    return argvs


def harness_argv(words: list[str]) -> list[str] | None:
    """``[VAR=… ]harness ARGS [&|> FILE]`` → ARGS (the shell's parts dropped); else None."""
    rest = list(words)
    while rest and ENV_ASSIGN.match(rest[0]):
        rest.pop(0)
    if not rest or rest[0] != "harness":
        return None
    args = rest[1:]
    if args and args[-1] == "&":
        args = args[:-1]
    if ">" in args:
        args = args[: args.index(">")]
    return args


def parse_only(args: list[str]) -> str | None:
    """harness's argparse over ``args``, nothing run: None when it accepts them, else
    what it said. A placeholder URL (``U``, ``URL``, ``…``) stands for an http one."""
    args = [
        "http://127.0.0.1:8000"
        if a in PLACEHOLDER_URLS and i and args[i - 1].endswith("url")
        else a
        for i, a in enumerate(args)
    ]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser = build_parser(args)
            _, unknown = parser.parse_known_args(args)
    except SystemExit as stop:
        return None if stop.code == 0 else err.getvalue().strip() or f"exit {stop.code}"
    return f"unrecognized arguments: {unknown}" if unknown else None


def _subparser(parser: argparse.ArgumentParser, words: list[str]) -> argparse.ArgumentParser:
    """The deepest (sub)command parser ``words`` names."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for i, word in enumerate(words):
                if word in action.choices:
                    return _subparser(action.choices[word], words[i + 1 :])
                if not word.startswith("-"):
                    break
    return parser


def synopsis_problem(args: list[str]) -> str | None:
    """A synopsis line (``[--flag N]``, ``a|b``): its command exists and each flag is one of
    its parser's options."""
    words = [w.strip("[]") for w in args]
    command = next((w for w in words if not w.startswith("-")), None)
    with contextlib.redirect_stderr(io.StringIO()):
        root = build_parser(words)
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    if command not in sub.choices:
        return f"no command {command!r}"
    parser = _subparser(root, words)
    known = {s for a in parser._actions for s in a.option_strings}
    flags = [w.split("=")[0] for part in words for w in part.split("|") if w.startswith("--")]
    missing = [f for f in flags if f not in known]
    return f"{parser.prog} has no {missing}" if missing else None


def other_command_problem(words: list[str]) -> str | None:
    """A command that is not harness: ``make`` targets and script paths exist."""
    rest = [w for w in words if not ENV_ASSIGN.match(w)]
    if not rest:
        return None
    if rest[0] == "make":
        makefile = (REPO / "Makefile").read_text()
        gone = [t for t in rest[1:] if not re.search(rf"^{re.escape(t)}:", makefile, re.M)]
        return f"no make target {gone}" if gone else None
    program = Path(rest[0]).name
    if program in {"python", "bash", "pytest"}:
        paths = [w for w in rest[1:] if re.search(r"\.(py|sh)$", w)]
        if program == "python" and rest[1:2] == ["-m"]:
            paths = [rest[2].replace(".", "/") + ".py"]
        gone = [p for p in paths if not (REPO / p).exists()]
        return f"no such file {gone}" if gone else None
    return None


def unwrapped(text: str) -> list[str]:
    """An output block's lines, a box's wrapped item joined back into one line (a box line
    that starts no item — ✓, ✗, ⚠, … — continues the one above it, as Rich wrapped it)."""
    out: list[str] = []
    for line in text.splitlines():
        inner = line.strip()
        boxed = inner.startswith("│") and inner.endswith("│")
        body = inner.strip("│ ") if boxed else inner
        if boxed and out and body and body[0] not in "✓✗⚠…" and out[-1].startswith("│"):
            out[-1] = f"{out[-1]} {body}"
        else:
            out.append(f"│ {body}" if boxed else inner)
    return out


def printed_commands(text: str) -> list[list[str]]:
    """The commands an output block shows: ``$ …`` lines and ``…: harness …`` tails."""
    found = (PRINTED_COMMAND.search(line.strip()) for line in unwrapped(text))
    return [shlex.split(m.group(1).rstrip(" │"), comments=True) for m in found if m]


def line_problems(block: Block) -> list[str]:
    """Each command line of a block that is not run: parsed (harness) or looked up."""
    problems = []
    lines = printed_commands(block.text) if block.kind == "output" else command_lines(block.text)
    for words in lines:
        args = harness_argv(words)
        if args is None:
            problem = other_command_problem(words) if block.kind == "no" else None
        elif any("[" in w for w in args):
            problem = synopsis_problem(args)
        else:
            problem = parse_only(args)
        if problem:
            problems.append(f"{block.where}: {' '.join(words)}: {problem}")
    return problems


# -- the tests -----------------------------------------------------------------------


def test_every_block_is_marked() -> None:
    unmarked = [b.where for b in ALL if b.kind not in KINDS]
    assert unmarked == [], "mark each block: <!-- doc-run: KIND --> (this file's docstring)"


def test_a_block_not_run_says_why() -> None:
    silent = [b.where for b in ALL if b.kind == "no" and not b.reason.startswith("needs ")]
    assert silent == [], "<!-- doc-run: no, needs … --> names what it needs"


def test_no_command_hides_in_an_indented_block() -> None:
    assert [hit for doc in DOCS for hit in indented_commands(doc)] == []


@pytest.mark.parametrize(
    "block",
    [b for b in ALL if b.kind in PARSED],
    ids=lambda b: b.where,
)
def test_a_command_not_run_still_parses(block: Block) -> None:
    assert line_problems(block) == []


@pytest.mark.parametrize("block", [b for b in ALL if b.kind == "space"], ids=lambda b: b.where)
def test_a_space_example_is_accepted(block: Block) -> None:
    from harness.tune.space import parse_space

    parse_space(block.text, source=block.where)


def test_the_checker_catches_drift() -> None:
    """The parse, the synopsis and the path checks fail a command that drifted."""
    drifted = Block(REPO / "README.md", 0, "no, needs x", "harness latency --url U --runz 3")
    assert line_problems(drifted)
    synopsis = Block(REPO / "README.md", 0, "no, needs x", "harness audit --url U [--roundz 16]")
    assert line_problems(synopsis)
    renamed = Block(REPO / "README.md", 0, "no, needs x", "harness latencyy --url U")
    assert line_problems(renamed)
    make = Block(REPO / "README.md", 0, "no, needs x", "make demoo")
    assert line_problems(make)
    script = Block(REPO / "README.md", 0, "no, needs x", "python bench/nothing_here.py")
    assert line_problems(script)
    fine = Block(REPO / "README.md", 0, "no, needs x", "harness audit --url U [--rounds 16]")
    assert line_problems(fine) == []


# -- the runnable blocks -------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_sim() -> Iterator[SimProcess]:
    """One simulator for every ``--url`` that names no simulator of its own block."""
    sim = SimProcess(config_from_args(build_parser(["simulate"]).parse_args(["simulate"])))
    sim.start()
    try:
        yield sim
    finally:
        sim.stop()


@dataclass
class Session:
    folder: Path
    shared: SimProcess
    sims: dict[str, SimProcess] = field(default_factory=dict)  # the doc's port → its sim
    printed: list[str] = field(default_factory=list)

    def url(self, given: str) -> str:
        local = LOCAL_URL.match(given)
        if local and local.group(1) in self.sims:
            return self.sims[local.group(1)].url
        if local or given in PLACEHOLDER_URLS:
            return self.shared.url
        return given

    def simulate(self, args: list[str]) -> None:
        parsed = build_parser(args).parse_args(args)
        sim = SimProcess(config_from_args(parsed))
        self.sims[str(parsed.port)] = sim.start()

    def harness(self, words: list[str]) -> Answer:
        args = harness_argv(words)
        assert args is not None
        for i in range(len(args) - 1):
            if args[i] == "--url":
                args[i + 1] = self.url(args[i + 1])
        bin_dir = str(Path(sys.executable).parent)  # `harness simulate` in a SPACE.toml
        answer = run_harness(
            args,
            reports=self.folder / "reports",
            cwd=self.folder,
            env={"PATH": f"{bin_dir}:{os.environ.get('PATH', '')}", "COLUMNS": "200"},
        )
        if ">" in words:
            (self.folder / words[words.index(">") + 1]).write_text(answer.stdout)
        return answer

    def shell(self, words: list[str]) -> Answer:
        done = subprocess.run(
            shlex.join(words).replace("'>'", ">"),
            shell=True,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return Answer(tuple(words), done.returncode, done.stdout, done.stderr)

    def stop(self) -> None:
        for sim in self.sims.values():
            sim.stop()


RUNNABLE = [b for b in ALL if b.kind == "run"]


@pytest.mark.parametrize("block", RUNNABLE, ids=lambda b: b.where)
def test_a_runnable_block_runs(block: Block, shared_sim: SimProcess, tmp_path: Path) -> None:
    previous = ALL[ALL.index(block) - 1]
    if previous.kind == "file" and previous.doc == block.doc:
        (tmp_path / previous.option("file")[0].split()[0]).write_text(previous.text + "\n")
    (tmp_path / "tasks").symlink_to(REPO / "tasks")  # the profiles a doc copies
    session = Session(tmp_path, shared_sim)
    answers: list[Answer] = []
    try:
        for words in command_lines(block.text):
            args = harness_argv(words)
            if args is not None and args[:1] == ["simulate"]:  # `&`, or another terminal
                session.simulate(args)
            elif args is not None:
                answers.append(session.harness(words))
            else:
                answers.append(session.shell(words))
    finally:
        session.stop()
    assert answers, f"{block.where}: a run block with no command"
    shown = "\n".join(
        f"$ {' '.join(a.argv)} → {a.rc}\n{a.stdout[-3000:]}\n{a.stderr[-3000:]}" for a in answers
    )
    assert all("Traceback" not in a.stdout + a.stderr for a in answers), shown
    assert [a.rc for a in answers[:-1]] == [0] * (len(answers) - 1), shown
    assert answers[-1].rc == int((block.option("exit") or ["0"])[0]), shown
    printed = "\n".join(a.stdout + a.stderr for a in answers)
    for text in block.option("shows"):
        assert text in block.text, f"{block.where}: shows {text!r}, which the block does not"
        assert text in printed, f"{block.where}: {text!r} not printed\n{shown}"
    for name in block.option("writes"):
        assert list(tmp_path.rglob(name)), f"{block.where}: no {name} written\n{shown}"
