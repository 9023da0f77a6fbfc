"""Best run, frontier and waterfall: pure functions over literal entries."""

from __future__ import annotations

import pytest

from harness.report.entry import LedgerEntry
from harness.report.frontier import frontier, waterfall


def run(
    i: int, score: float | None, verdict: str | None = "PASS", mode: str = "official"
) -> LedgerEntry:
    return LedgerEntry.model_validate(
        {
            "id": f"2026010{i}-100000-r{i}",
            "time": f"2026-01-0{i}T10:00:00+00:00",
            "score": score,
            "score_mode": mode if score is not None else None,
            "verdict": verdict,
        }
    )


def test_no_runs_no_frontier() -> None:
    fr = frontier([])
    assert fr.best is None and fr.points == [] and fr.basis == "no scored runs"
    assert waterfall([]) == []


def test_frontier_keeps_improving_passing_runs_in_time_order() -> None:
    entries = [run(5, 1.8), run(1, 1.2), run(2, 1.5, "FAIL"), run(3, 1.4), run(4, 1.3)]
    fr = frontier(entries)
    assert fr.basis == "runs that passed the gate"
    assert [e.score for e in fr.points] == [1.2, 1.4, 1.8]
    assert fr.best is not None and fr.best.id == "20260105-100000-r5"
    assert [e.id[-2:] for e in fr.candidates] == ["r1", "r3", "r4", "r5"]


def test_a_tie_does_not_join_the_frontier() -> None:
    assert [e.id[-2:] for e in frontier([run(1, 2.0), run(2, 2.0)]).points] == ["r1"]


def test_when_nothing_passed_every_scored_run_competes() -> None:
    fr = frontier(
        [run(1, 1.1, "FAIL"), run(2, None, None), run(3, 0.9, None), run(4, 1.3, "INCOMPLETE")]
    )
    assert fr.basis == "all scored runs; none passed the gate"
    assert [e.score for e in fr.points] == [1.1, 1.3]


def test_strict_scores_are_not_compared_with_official_ones() -> None:
    fr = frontier([run(1, 1.2), run(2, 9.0, mode="strict")])
    assert [e.score for e in fr.points] == [1.2]
    only_strict = frontier([run(1, 1.2, mode="strict"), run(2, 1.4, mode="strict")])
    assert [e.score for e in only_strict.points] == [1.2, 1.4]


def test_waterfall_steps_between_frontier_runs() -> None:
    steps = waterfall(frontier([run(1, 1.2), run(2, 1.4), run(3, 1.3), run(4, 1.8)]).points)
    assert [(s.label, s.first) for s in steps] == [("r1", True), ("r2", False), ("r4", False)]
    assert [s.bottom for s in steps] == pytest.approx([0.0, 1.2, 1.4])
    assert [s.delta for s in steps] == pytest.approx([1.2, 0.2, 0.4])
    assert [s.total for s in steps] == pytest.approx([1.2, 1.4, 1.8])


def test_single_run_waterfall_is_its_score() -> None:
    steps = waterfall(frontier([run(1, 0.4, "FAIL")]).points)
    assert [(s.bottom, s.delta, s.total) for s in steps] == [(0.0, 0.4, 0.4)]
