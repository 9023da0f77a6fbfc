"""``harness/tune`` is rooms, not a hall (harness/tune/__init__.py): every module is in a
room, and a room imports only its own and lower rooms (read from the source, never
imported)."""

from __future__ import annotations

import ast
from pathlib import Path

import harness.tune

TUNE = Path(harness.tune.__file__).resolve().parent
ROOMS = ("space", "record", "launch", "trial", "study", "confirm", "run", "show")  # bottom to top


def _room(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[2] if parts[:2] == ["harness", "tune"] and len(parts) > 2 else None


def _imported_rooms(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {r for a in node.names if (r := _room(a.name)) is not None}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "harness.tune":  # from harness.tune import launch
                found |= {a.name for a in node.names}
            elif (r := _room(node.module)) is not None:
                found.add(r)
    return found


def test_every_module_is_in_a_room() -> None:
    assert sorted(p.name for p in TUNE.glob("*.py")) == ["__init__.py"]
    assert sorted(p.name for p in TUNE.iterdir() if p.is_dir() and p.name != "__pycache__") == (
        sorted(ROOMS)
    )


def test_no_room_imports_a_higher_one() -> None:
    up: list[str] = []
    for room in ROOMS:
        for path in sorted((TUNE / room).glob("*.py")):
            for other in _imported_rooms(path):
                assert other in ROOMS, f"{path.name} imports harness.tune.{other}"
                if ROOMS.index(other) > ROOMS.index(room):
                    up.append(f"{room}/{path.name} → {other}")
    assert up == []
