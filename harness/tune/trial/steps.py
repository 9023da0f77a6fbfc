"""Each step of a trial's gate plan with its result, as ``tune.json``, the console and the
tune page show it (``TrialRecord.steps``): read from the trial's run folder through the
report reader, never re-measured, and naming no kind.

A step's result is, in this order: its kind's gate cells where its summary has them
(check's ``checks 17/17``, quality's ``MMLU-Pro 0.357 ✗``); the score where the kind
carries one (latency's ``4.757×``); else the gate's own words on it (``gate.json``'s
reasons of that source: a blocking one first, with ✗; the audit's ``6 rules judged, none
fails``). A step that never ran says ``not measured``; one that ran but left no readable
report says so; a partial report is marked ``partial``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.gate.report import GateReport
from harness.registry import AnyKind
from harness.report.folder import RunFiles, read_run
from harness.report.parts import report_of, summaries

NOT_MEASURED = "not measured"


def step_results(folder: Path, planned: Sequence[AnyKind], ran: Sequence[str]) -> dict[str, str]:
    """``{step: result}`` for every step of the plan, in its order (``ran``: those run)."""
    run = read_run(folder) if folder.is_dir() else RunFiles(folder=folder)
    gate = run.get(GateReport)
    return {k.name: _result(run, gate, k) if k.name in ran else NOT_MEASURED for k in planned}


def _result(run: RunFiles, gate: GateReport | None, kind: AnyKind) -> str:
    report = report_of(run, kind)
    if report is None:
        return f"no {kind.report.FILENAME}"
    facet = dict((k.name, s) for k, s in summaries()).get(kind.name)
    said = [r for r in gate.reasons if r.source == kind.name] if gate is not None else []
    blocking = [r for r in said if r.blocking]
    if blocking:
        text = "✗ " + _own(kind, blocking[0].text)
    elif facet is not None and facet.gate_cells is not None:
        text = " · ".join(facet.gate_cells(facet.of(report))) or "✓"
    elif kind.score is not None:
        text = kind.score.text(kind.score.of(report))
    else:
        plain = [r for r in said if not r.incomplete]
        text = _own(kind, plain[0].text) if plain else "✓"
    return text if report.complete else f"{text} (partial)"


def _own(kind: AnyKind, text: str) -> str:
    """A reason without its source's name in front (``audit: 6 rules …`` → ``6 rules …``)."""
    return text.removeprefix(f"{kind.name}: ")


def shown(steps: dict[str, str]) -> str:
    """``checks 17/17 · latency 4.757× · quality not measured · audit 6 rules judged,
    none fails (…)``: one line."""
    return " · ".join(r if r.startswith(n) else f"{n} {r}" for n, r in steps.items())
