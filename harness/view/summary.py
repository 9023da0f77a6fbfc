"""A kind's summary facet: what one run of the kind shows outside its own sections.

Each measurement kind's record (``harness/<pkg>/kind.py``) binds its package's
``summary.py: SUMMARY`` lazily; the ledger line (``report/entry.py``), the
ledger table (``report/table.py``), the run summary (``report/sections.py``),
the ledger page's latest run (``report/pages.py``) and the gate's headline
figures (``gate/judge.py``) iterate the registry and ask each kind's facet, so
none of them names a kind:

- ``part``: the kind's fields of a ledger line, as a model (flat keys of the
  line); ``of`` fills them from the kind's report;
- ``facts``: its lines of the run summary;
- ``columns`` / ``score_columns``: its ledger-table columns (the details, such
  as bucket medians, come after the ranked score; the kinds' own scores after
  every kind's details);
- ``headline``: its figures in ``gate.json``;
- ``ranked``: the score the ledger ranks runs by (one kind has it), and ``not_ranked``:
  why a run's may not compete;
- ``latest``: its figures of the newest run on the ledger page;
- ``gate_cells``: its short cells of a run's gates (``report/parts.py: gate_cells``).

Plain data over plain data: no I/O, nothing heavy imported.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from harness.profiles import Profile
from harness.view.model import Block

R = TypeVar("R")  # the kind's report class
P = TypeVar("P", bound=BaseModel)  # its part of a ledger line

ScoreMode = Literal["official", "strict"]


@dataclass(frozen=True)
class RankedScore:
    """The score the ledger ranks runs by, with its interval and the mode it was measured in."""

    score: float | None = None
    ci95: tuple[float, float] | None = None
    mode: ScoreMode | None = None


@dataclass(frozen=True)
class LedgerColumn(Generic[P]):
    """One ledger-table column a kind adds: its header and each run's cell (from its part)."""

    header: str
    cell: Callable[[P], str]


@dataclass(frozen=True)
class LatestRun(Generic[R, P]):
    """The newest run on the ledger page, beside its group's best (when another run)."""

    label: str
    report: R | None  # the kind's report in the run folder (None: absent or unreadable)
    part: P
    best: tuple[str, P] | None = None  # the best run's label and part


def _none(parts: Sequence[Any]) -> list[LedgerColumn[Any]]:
    return []


@dataclass(frozen=True)
class KindSummary(Generic[R, P]):
    part: type[P]  # its fields of a ledger line; every key has a default (a run without it)
    of: Callable[[R], P]  # the report → its part
    facts: Callable[[P], list[tuple[str, str]]]  # its lines of the run summary (none: [])
    # its detail columns (bucket medians, benchmarks), given every row's part
    columns: Callable[[Sequence[P]], list[LedgerColumn[P]]] = field(default=_none)
    # its own score's column, after every kind's details
    score_columns: Callable[[Sequence[P]], list[LedgerColumn[P]]] = field(default=_none)
    # its figures in gate.json (the report absent: the same keys, empty)
    headline: Callable[[R | None], dict[str, Any]] | None = None
    # the score the ledger ranks runs by (★ best, frontier): one kind of the registry
    ranked: Callable[[P], RankedScore] | None = None
    # why a run's ranked score may not compete: (its part, complete, its profile or None)
    not_ranked: Callable[[P, bool, Profile | None], list[str]] | None = None
    # the model the report names, for the server column when provenance names none
    model: Callable[[R], str | None] | None = None
    # its figures of the newest run on the ledger page
    latest: Callable[[LatestRun[R, P]], list[Block | None]] | None = None
    # whether a folder holding only its report is a ledger row (check's is folded)
    ledger_row: bool = True
    # its short cells of a run's gates, shown in one cell beside the score (a tune's trials:
    # ``checks 20/20``, ``MMLU-Pro 0.357 ✗``); none: it shows none there
    gate_cells: Callable[[P], list[str]] | None = None

    def empty(self) -> P:
        """The part of a run that does not hold this kind's report."""
        return self.part()
