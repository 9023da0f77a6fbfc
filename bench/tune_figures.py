"""The shape of ``harness/tune`` in figures (issue 44, item 6): its largest modules (lines),
the import edges between its rooms (read from the source, as tests/unit/test_tune_rooms.py
reads them), and the repeated blocks of six or more lines (the ``duplicates`` command, when
it is on PATH).

    python bench/tune_figures.py [--most N]
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
from collections import Counter
from pathlib import Path

TUNE = Path(__file__).resolve().parent.parent / "harness" / "tune"


def _room(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[2] if parts[:2] == ["harness", "tune"] and len(parts) > 2 else None


def _imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {r for a in node.names if (r := _room(a.name)) is not None}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "harness.tune":
                found |= {a.name for a in node.names}
            elif (r := _room(node.module)) is not None:
                found.add(r)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--most", type=int, default=8, help="rows of the largest modules")
    args = ap.parse_args()
    modules = sorted(TUNE.rglob("*.py"))
    sizes = sorted(
        ((len(p.read_text(encoding="utf-8").splitlines()), p.relative_to(TUNE)) for p in modules),
        reverse=True,
    )
    total = sum(n for n, _ in sizes)
    print(f"harness/tune: {len(modules)} modules, {total} lines")
    print("largest modules:")
    for n, rel in sizes[: args.most]:
        print(f"  {n:>5}  {rel}")
    edges: Counter[tuple[str, str]] = Counter()
    for p in modules:
        rel = p.relative_to(TUNE)
        if len(rel.parts) < 2:
            continue
        room = rel.parts[0]
        for other in _imported(p):
            if other != room:
                edges[(room, other)] += 1
    print(f"room import edges: {len(edges)} (room → room: modules importing)")
    for (a, b), n in sorted(edges.items()):
        print(f"  {a} → {b}: {n}")
    if shutil.which("duplicates") is None:
        print("repeated blocks: `duplicates` is not on PATH")
        return
    out = subprocess.run(
        ["duplicates", "--repo", str(TUNE), "--most", "40"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    print("repeated blocks (six or more lines, `duplicates`):")
    for line in out.splitlines():
        print(f"  {line}")


if __name__ == "__main__":
    main()
