"""Each kind's part of a ledger entry, through the registry's summary facets.

A kind's record binds its package's summary facet (harness/view/summary.py); the
ledger line, the table, the run summary and the ledger page ask it here, in the
registry's order, and name no kind themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel

from harness.registry import KINDS, AnyKind
from harness.report.folder import RunFiles
from harness.report_base import Report
from harness.risk import RiskFlag
from harness.view.summary import KindSummary, RankedScore

P = TypeVar("P", bound=BaseModel)
AnySummary = KindSummary[Any, Any]


@cache
def summaries() -> tuple[tuple[AnyKind, AnySummary], ...]:
    """Every kind that has a summary facet, with it, in the registry's order."""
    facets = ((k, k.summary_facet()) for k in KINDS)
    return tuple((k, s) for k, s in facets if s is not None)


def gate_cells(parts: Mapping[str, BaseModel]) -> list[tuple[AnyKind, list[str]]]:
    """A run's gates in short cells, by kind in the registry's order (the kinds whose summary
    has ``gate_cells``: check's ``checks 20/20``, quality's ``MMLU-Pro 0.357 ✗``), from its
    ledger parts (``LedgerEntry.parts``); a kind whose report is absent has no cells."""
    out: list[tuple[AnyKind, list[str]]] = []
    for kind, facet in summaries():
        if facet.gate_cells is not None:
            part = next((p for p in parts.values() if isinstance(p, facet.part)), facet.empty())
            out.append((kind, facet.gate_cells(part)))
    return out


def ranked_kind() -> tuple[AnyKind, AnySummary] | None:
    """The kind whose score the ledger ranks runs by (★ best, frontier)."""
    return next(((k, s) for k, s in summaries() if s.ranked is not None), None)


def empty_parts() -> dict[str, BaseModel]:
    return {k.name: s.empty() for k, s in summaries()}


def split_parts(data: dict[str, Any]) -> dict[str, Any]:
    """A ledger line's flat keys: each kind's own into its part (its defaults for the rest;
    ``parts`` given whole, by the builder, is completed the same way)."""
    rest = dict(data)
    given = rest.pop("parts", None) or {}
    parts: dict[str, Any] = {}
    for k, s in summaries():
        own = {key: rest.pop(key) for key in list(rest) if key in s.part.model_fields}
        parts[k.name] = given[k.name] if k.name in given else s.part.model_validate(own)
    return {**rest, "parts": parts}


def report_of(run: RunFiles, kind: AnyKind) -> Report | None:
    report = run.reports.get(kind.filename)
    return report if isinstance(report, kind.report) else None


def parts_of(run: RunFiles) -> dict[str, BaseModel]:
    """Each kind's part from the folder's report of it (its defaults when there is none)."""
    out: dict[str, BaseModel] = {}
    for k, s in summaries():
        report = report_of(run, k)
        out[k.name] = s.of(report) if report is not None else s.empty()
    return out


def ranked(parts: dict[str, BaseModel]) -> RankedScore:
    found = ranked_kind()
    if found is None or found[0].name not in parts or found[1].ranked is None:
        return RankedScore()
    return found[1].ranked(parts[found[0].name])


def ranked_flags(run: RunFiles) -> list[RiskFlag]:
    """The ranked kind's own risk flags (what a row shows before it is gated)."""
    found = ranked_kind()
    report = report_of(run, found[0]) if found is not None else None
    flags = getattr(report, "flags", None)
    return list(flags) if isinstance(flags, list) else []


def model_named(run: RunFiles) -> list[str]:
    """The models the folder's reports name themselves (the server's, when provenance is
    silent), in the registry's order."""
    out: list[str] = []
    for k, s in summaries():
        report = report_of(run, k)
        if s.model is not None and report is not None and (m := s.model(report)):
            out.append(m)
    return out
