"""The foundations stand alone: the records every report carries import nothing above them.

``runs`` → ``flags`` → ``client`` → ``runs`` was one knot (the HTTP client took
``ServerFingerprint`` from the report base, which took flag names from the flags,
which took the URL check from the client). Split by noun, the records sit at the
bottom (harness/provenance.py), and no foundation folder or module is part of an
import circle between top-level units, lazy and type-only imports included.
Read from the source (ast), never imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import harness

PACKAGE = Path(harness.__file__).resolve().parent

# the units that came out of runs.py and flags.py, and those they stand on
FOUNDATIONS = (
    "provenance",
    "run_folder",
    "report_base",
    "target",
    "argtypes",
    "flags",
    "overrides",
    "client",
    "errors",
    "paths",
)


def _unit(module: str) -> str:
    """``harness.client.http`` → ``client``; ``harness`` → ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
    return {m for m in out if m == "harness" or m.startswith("harness.")}


def _unit_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(p for p in rel.parts if p != "__init__")
        src = _unit(module)
        graph.setdefault(src, set()).update(_unit(t) for t in _imports(path))
    return {u: targets - {u, ""} for u, targets in graph.items()}


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        u = todo.pop()
        if u not in seen:
            seen.add(u)
            todo += graph.get(u, ())
    return seen


def test_every_foundation_exists() -> None:
    units = set(_unit_graph())
    assert set(FOUNDATIONS) <= units, sorted(set(FOUNDATIONS) - units)


def test_no_foundation_is_in_an_import_circle() -> None:
    graph = _unit_graph()
    circles = {
        u: sorted(v for v in _reaches(graph, u) if u in _reaches(graph, v))
        for u in FOUNDATIONS
        if u in _reaches(graph, u)
    }
    assert circles == {}, f"foundations in an import circle (with): {circles}"


def test_the_records_import_nothing_of_the_harness_but_its_version() -> None:
    # what the client, the flags and every report share: at the very bottom
    assert _imports(PACKAGE / "provenance.py") == {"harness"}
    assert _unit_graph()["target"] == set()


def test_the_circle_check_sees_a_circle() -> None:
    graph = {"runs": {"flags"}, "flags": {"client"}, "client": {"runs"}, "stats": set()}
    assert "runs" in _reaches(graph, "runs") and "stats" not in _reaches(graph, "stats")
