"""A trial's status, and everything a status means, in one table (pure).

Search, confirmation, console and page read a status's properties here and nowhere else:
whether it is feasible (the study is not told a constraint violation; a confirmation may
take it as a contestant), its tone (``harness/view/model.py``: the page's cell, the
console's colour through :data:`CONSOLE_STYLE`), its group in the page's score chart,
whether its server's log tail is shown, whether its speed was measured. The strings are
those ``tune.json`` has always held, so an old tune folder still reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from harness.view.chart import Color
from harness.view.model import Tone

Group = Literal["ok", "not above the incumbent (quality not measured)", "infeasible", "unfinished"]
# the chart's series, in this order, each in its colour
GROUPS: dict[Group, Color] = {
    "ok": "good",
    "not above the incumbent (quality not measured)": "s0",
    "infeasible": "bad",
    "unfinished": "neutral",
}

# the console's colour for a tone: the view's own (harness/view/console.py), but "plain"
# in cyan, so a feasible trial that is not the best still stands out from the log lines
CONSOLE_STYLE: dict[Tone, str] = {
    "good": "green",
    "plain": "cyan",
    "bad": "red",
    "warn": "yellow",
    "dim": "dim",
    "strong": "bold",
}


@dataclass(frozen=True)
class Meaning:
    feasible: bool  # feasible as far as known: never recommended unless ok
    tone: Tone
    group: Group
    speed_measured: bool = False  # its speed step ran to its end
    log_shown: bool = False  # the server's log tail explains it


class Status(StrEnum):
    OK = "ok"  # measured in full, no gate failed: may be the incumbent
    SLOWER = "slower"  # cannot beat the incumbent: quality not measured
    TIE = "tie"  # no higher than the incumbent, but within noise of it: quality not measured
    LOST_RACE = "lost-race"  # the race stopped its speed measurement: it cannot win
    DISQUALIFIED = "disqualified"  # a required check failed
    GATE_FAILED = "gate-failed"  # a quality gate (or another blocking rule) failed
    AUDIT_FAILED = "audit-failed"  # a contest rule failed (harness audit): speed not believed
    SLO_FAILED = "slo-failed"  # an SLO of SPACE.toml ([[slo]]) was violated
    FAILED_TO_START = "failed-to-start"  # exited or never ready
    CRASHED = "crashed"  # the server died while measured
    ERROR = "error"  # a measurement stopped with an error
    VOID = "void"  # its URL still answered after it was stopped: another server was measured
    RUNNING = "running"  # read back from the study: being measured now
    INTERRUPTED = "interrupted"  # read back from the study: a stopped harness left it

    @property
    def meaning(self) -> Meaning:
        return MEANINGS[self]

    @property
    def feasible(self) -> bool:
        return MEANINGS[self].feasible

    @property
    def tone(self) -> Tone:
        """Its tone on the page (the cell's)."""
        return MEANINGS[self].tone

    @property
    def style(self) -> str:
        """Its colour on the console (the same tone)."""
        return CONSOLE_STYLE[MEANINGS[self].tone]

    @property
    def group(self) -> Group:
        """Its series in the page's score chart."""
        return MEANINGS[self].group

    @property
    def speed_measured(self) -> bool:
        return MEANINGS[self].speed_measured

    @property
    def log_shown(self) -> bool:
        return MEANINGS[self].log_shown


_SLOWER: Group = "not above the incumbent (quality not measured)"
MEANINGS: dict[Status, Meaning] = {
    Status.OK: Meaning(True, "good", "ok", speed_measured=True),
    Status.SLOWER: Meaning(True, "plain", _SLOWER, speed_measured=True),
    Status.TIE: Meaning(True, "plain", _SLOWER, speed_measured=True),
    Status.LOST_RACE: Meaning(True, "plain", _SLOWER),
    Status.DISQUALIFIED: Meaning(False, "bad", "infeasible"),
    Status.GATE_FAILED: Meaning(False, "bad", "infeasible", speed_measured=True),
    Status.AUDIT_FAILED: Meaning(False, "bad", "infeasible", speed_measured=True),
    Status.SLO_FAILED: Meaning(False, "bad", "infeasible", speed_measured=True),
    Status.FAILED_TO_START: Meaning(False, "warn", "infeasible", log_shown=True),
    Status.CRASHED: Meaning(False, "warn", "infeasible", log_shown=True),
    Status.ERROR: Meaning(False, "warn", "infeasible"),
    Status.VOID: Meaning(False, "warn", "infeasible"),
    Status.RUNNING: Meaning(False, "dim", "unfinished"),
    Status.INTERRUPTED: Meaning(False, "warn", "unfinished"),
}
