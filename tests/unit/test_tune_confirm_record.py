"""The confirmation's record from literal legs: who is measured, in what order, the call
against the runner-up, the pick, the console's verdict; tune.json schema 1 still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.tune.confirm import build_record, contestants, order, read_legs
from harness.tune.confirm.view import confirm_lines
from harness.tune.record.confirm import LEG_FILE, ConfirmLeg
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.space import parse_space

BASE = {"seqs": 8, "cache": "off"}


def _trial(
    n: int, params: dict[str, object], status: str, score: float | None, note: str
) -> TrialRecord:
    return TrialRecord(
        number=n,
        params=params,  # type: ignore[arg-type]
        note=note,
        status=status,
        score=score,
        feasible=status in ("ok", "slower"),
        launch=f"serve --t {n}",
    )


def _report() -> TuneReport:
    trials = [
        _trial(5, BASE, "interrupted", None, "baseline"),  # killed, measured again as 0
        _trial(0, BASE, "ok", 10.0, "baseline"),
        _trial(1, {"seqs": 16, "cache": "on"}, "ok", 12.5, "seqs 8→16, cache off→on"),
        _trial(2, {"seqs": 16, "cache": "off"}, "slower", 12.0, "seqs 8→16"),
        _trial(3, {"seqs": 4, "cache": "on"}, "gate-failed", 20.0, "seqs 8→4, cache off→on"),
        _trial(4, {"seqs": 8, "cache": "on"}, "ok", 11.0, "cache off→on"),
    ]
    return TuneReport(name="t", sampler="grid", trials=trials, best=trials[2])


def _legs(scores: dict[int, list[float]], colds: dict[int, float] | None = None) -> dict:
    out = {}
    for trial, values in scores.items():
        for r, s in enumerate(values, start=1):
            cold = (colds or {}).get(trial, 1.0)
            leg = ConfirmLeg(round=r, trial=trial, status="ok", score=s, cold_start_s=cold)
            out[(r, trial)] = leg
    return out


def test_the_winner_the_runner_up_and_the_baseline_in_alternating_order() -> None:
    who = [(t.number, role) for t, role in contestants(_report())]
    assert who == [(1, "winner"), (2, "runner-up"), (0, "baseline")]  # trial 3 failed a gate
    assert order([1, 2, 0], 1) == [1, 2, 0]
    assert order([1, 2, 0], 2) == [0, 2, 1]
    assert order([1, 2, 0], 3) == [1, 2, 0]


def test_a_clear_lead_is_confirmed_and_the_selection_error_shown() -> None:
    rep = _report()
    legs = _legs({1: [11.9, 12.0, 12.1], 2: [10.8, 10.9, 11.0], 0: [9.9, 10.0, 10.1]})
    rec = build_record(3, contestants(rep), legs, BASE)
    assert rec.complete and rec.call == "confirmed" and rec.pick == 1
    assert rec.pick_command == "serve --t 1"
    assert [c.call for c in rec.comparisons] == ["confirmed", "confirmed"]
    assert rec.selection is not None and rec.selection.luck == "lucky"  # 12.5 searched, 12.0
    assert rec.selection.gap_pct == pytest.approx(12.5 / 12.0 * 100 - 100)
    lines = confirm_lines(rec, "×")
    assert any(
        line.startswith("[bold green]best: trial 1 +10.1 % over the runner-up (trial 2; 95 % CI")
        and line.endswith("), confirmed[/]")
        for line in lines
    )
    assert any(
        "was 4.2 % above what the confirmation measured" in line and line.endswith("a lucky sample")
        for line in lines
    )


def test_a_tie_picks_the_simpler_diff_whose_quality_was_measured() -> None:
    """The runner-up (slower: quality never measured) cannot be picked; the baseline, tied
    with the winner and with no change at all, is."""
    rep = _report()
    legs = _legs({1: [10.0, 10.1, 9.9], 2: [10.0, 10.0, 10.0], 0: [10.05, 9.95, 10.0]})
    rec = build_record(3, contestants(rep), legs, BASE)
    assert rec.call == "tie"
    assert rec.pick == 0 and rec.pick_command == "serve --t 0"
    assert (
        rec.pick_by
        == "a tie within noise, picked by the simpler diff from the baseline (0 change(s) vs 2)"
    )
    assert any(
        line.startswith("[yellow]a tie within noise with the runner-up (trial 2;")
        for line in confirm_lines(rec)
    )


def test_an_overturned_winner_gives_way_only_to_a_measured_candidate() -> None:
    rep = _report()
    legs = _legs({1: [10.0, 10.1, 9.9], 2: [11.0, 11.1, 10.9], 0: [9.0, 9.0, 9.1]})
    rec = build_record(3, contestants(rep), legs, BASE)
    assert rec.call == "overturned" and rec.pick == 1  # trial 2's quality was never measured
    assert "its quality was not measured" in rec.pick_by


def test_an_unfinished_confirmation_is_incomplete() -> None:
    legs = _legs({1: [12.0], 2: [11.0]})
    rec = build_record(3, contestants(_report()), legs, BASE)
    assert not rec.complete and rec.call == "inconclusive"
    assert [c.scores for c in rec.contestants] == [
        [12.0, None, None],
        [11.0, None, None],
        [None, None, None],
    ]


def test_finished_legs_are_read_back_and_unfinished_ones_skipped(tmp_path: Path) -> None:
    done = tmp_path / "r1-t001"
    done.mkdir()
    leg = ConfirmLeg(round=1, trial=1, status="ok", score=12.0, folder="confirm/r1-t001")
    (done / LEG_FILE).write_text(leg.model_dump_json())
    (tmp_path / "r1-t002").mkdir()  # killed before its leg.json; no candidate.json either
    assert read_legs(tmp_path) == {(1, 1): leg}


def test_tune_json_schema_1_reads_without_a_confirmation() -> None:
    old = {"kind": "tune", "schema_version": 1, "name": "t", "sampler": "grid", "trials": []}
    rep = TuneReport.from_json(json.dumps(old))
    assert rep.schema_version == 3 and rep.confirm is None and not rep.interrupted


def test_confirm_rounds_in_space_toml() -> None:
    text = '[serve]\ncommand = "x {port}"\n[params]\na = [1, 2]\n'
    assert parse_space(text).confirm.rounds == 3
    assert parse_space(text + "[confirm]\nrounds = 0\n").confirm.rounds == 0
    with pytest.raises(ConfigError, match=r"confirm\.rounds: 1 round gives no spread"):
        parse_space(text + "[confirm]\nrounds = 1\n")
    with pytest.raises(ConfigError, match=r"confirm\.round: Extra inputs"):
        parse_space(text + "[confirm]\nround = 2\n")


def _broke(legs: dict, trial: int, why: str) -> dict:
    """``trial``'s legs with an SLO broken (their scores stand: the measurement is real)."""
    return {
        k: leg.model_copy(update={"slo": why}) if k[1] == trial else leg for k, leg in legs.items()
    }


def test_a_winner_that_breaks_an_slo_on_its_fresh_legs_is_not_picked() -> None:
    entrants = contestants(_report())
    legs = _legs({1: [12.6, 12.4, 12.5], 2: [12.0, 12.1, 11.9], 0: [10.0, 10.1, 9.9]})
    why = "slo[0] p99_ttft_ms ≤ 80 in short: measured 95.0 ms > 80.0 ms in short"
    rec = build_record(3, entrants, _broke(legs, 1, why), BASE)
    assert rec.call == "confirmed"  # the speed comparison itself is unchanged
    assert rec.contestants[0].slo == why
    assert rec.pick == 0  # trial 2 is only "slower" (quality never measured): the baseline
    assert "broke an SLO on its confirmation legs" in rec.pick_by
    assert rec.pick_command == "serve --t 0"
    lines = confirm_lines(rec)
    assert any("broke an SLO" in line and "trial   1" in line for line in lines)


def test_when_every_ok_contestant_breaks_an_slo_none_is_picked() -> None:
    entrants = contestants(_report())
    legs = _legs({1: [12.6, 12.4, 12.5], 2: [12.0, 12.1, 11.9], 0: [10.0, 10.1, 9.9]})
    legs = _broke(_broke(legs, 1, "slo[0] …"), 0, "slo[0] …")
    rec = build_record(3, entrants, legs, BASE)
    assert rec.pick is None and rec.pick_command is None
    assert rec.pick_by.startswith("none: the winner (trial 1) broke an SLO")


def test_an_opponent_that_breaks_an_slo_is_never_the_tie_pick() -> None:
    entrants = contestants(_report())
    legs = _legs({1: [12.0, 12.1, 11.9], 2: [12.0, 12.1, 11.9], 0: [12.0, 12.1, 11.9]})
    plain = build_record(3, entrants, legs, BASE)
    assert plain.pick == 0  # a tie: the baseline has the simpler diff
    rec = build_record(3, entrants, _broke(legs, 0, "slo[1] …"), BASE)
    assert rec.pick == 1 and rec.contestants[2].slo == "slo[1] …"
