"""``harness/audit`` keeps each phase in a room (harness/audit/__init__.py; docs/architecture.md,
"A kind with phases keeps each in a room"): every phase a rule names is a sub-package of
that name, every sub-package is a phase, a room's ``__init__`` says what it holds and
re-exports nothing, and each rule's judge lives in its own phase's room (read from the
source and the records, never run)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import harness.audit
from harness.audit.rules import RULES
from harness.audit_catalogue import RulePhase

AUDIT = Path(harness.audit.__file__).resolve().parent
IN_PROCESS = "in-process"  # judged by harness vlm audit: no room here


def _rooms() -> list[str]:
    return sorted(p.name for p in AUDIT.iterdir() if (p / "__init__.py").is_file())


def test_every_phase_is_a_room_and_every_room_a_phase() -> None:
    phases = sorted(p for p in get_args(RulePhase) if p != IN_PROCESS)
    assert _rooms() == phases


def test_a_rooms_init_is_its_docstring_alone() -> None:
    for room in _rooms():
        tree = ast.parse((AUDIT / room / "__init__.py").read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree)
        assert doc and "send" in doc and "record" in doc and "rule" in doc, room
        assert len(tree.body) == 1, f"{room}/__init__.py holds more than its docstring"


def test_each_judge_is_in_its_phase_room() -> None:
    judged = [r for r in RULES if r.judge is not None]
    assert judged, "no rule judged here"
    for rule in judged:
        assert rule.judge is not None
        assert rule.judge.__module__.startswith(f"harness.audit.{rule.phase}."), (
            f"{rule.name}'s judge is in {rule.judge.__module__}, not in its phase's room "
            f"harness/audit/{rule.phase}/"
        )
