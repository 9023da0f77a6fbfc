"""The tune page (harness/tune/show/views.py, page.py, importance.py): trials, score against
trial, the frontier with "within noise" steps, parameter importance or why there is none,
and ``harness report TUNE_DIR`` showing it."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from harness.cli import main
from harness.registry import KINDS
from harness.report.entry import LedgerEntry
from harness.tune.record.confirm import Comparison, ConfirmRecord, Contestant, SelectionRecord
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.show.importance import param_importance
from harness.tune.show.page import tune_page
from harness.tune.show.render import render_tune
from harness.tune.show.views import TrialView, frontier, gates_text, sections
from harness.tune.space import parse_space
from harness.tune.trial.steps import step_results
from harness.view.model import Table

SPACE = """
name = "pg"
[serve]
command = "srv --port {port} --a {a} {b}"
[params]
a = [4, 1]
b = ["x", "y"]
[baseline]
a = 4
b = "x"
"""


def _t(n: int, a: int, b: str, status: str, score: float | None, note: str = "") -> TrialRecord:
    return TrialRecord(
        number=n,
        params={"a": a, "b": b},
        note=note or f"a 4→{a}, b x→{b}",
        status=status,
        score=score,
        feasible=status in ("ok", "slower"),
        minutes=0.3,
        launch=f"srv --port 1 --a {a} {b}",
    )


def _report() -> TuneReport:
    trials = [
        _t(0, 4, "x", "ok", 4.60, "baseline"),
        _t(1, 1, "y", "gate-failed", 18.0),
        _t(2, 4, "y", "ok", 4.65),
        _t(3, 1, "x", "ok", 15.0),
    ]
    return TuneReport(
        name="pg",
        sampler="grid",
        score_name="mean speedup",
        stopped_by="grid exhausted",
        trials=trials,
        best=trials[3],
        best_command=trials[3].launch,
    )


def _entry(ci: tuple[float, float]) -> LedgerEntry:
    return LedgerEntry(id="x", time="2026-01-01T00:00:00+00:00", score_ci95=ci)


def test_the_frontier_marks_a_step_inside_the_previous_ci_as_within_noise() -> None:
    report = _report()
    cis = {0: (4.5, 4.7), 2: (4.6, 4.7), 3: (14.8, 15.2)}
    views = [
        TrialView(t, _entry(cis[t.number]) if t.number in cis else None) for t in report.trials
    ]
    steps = frontier(report, views)
    assert [s.record.number for s in steps] == [0, 2, 3]  # the gate-failed trial 1 never is
    assert [s.noise for s in steps] == ["", "within noise", "beyond noise"]
    assert steps[0].change == "baseline" and steps[2].change == "a 4→1, b y→x"
    assert steps[2].delta == pytest.approx(15.0 - 4.65)
    # without CIs: +1.1 % is under the 2 % minimum effect, +222 % is not
    assert [s.noise for s in frontier(report)] == ["", "within noise", "no CI"]


def test_a_step_under_the_minimum_effect_is_never_beyond_noise() -> None:
    """Two tight CIs that do not overlap (runs = 3 of one process) do not make +0.001 on a
    score of 4.6 a real change: the confirmation's noise band (2 %) calls it a tie."""
    trials = [_t(0, 4, "x", "ok", 4.600, "baseline"), _t(1, 4, "y", "ok", 4.601)]
    report = _report().model_copy(update={"trials": trials, "best": trials[1]})
    cis = {0: (4.5995, 4.6005), 1: (4.6007, 4.6013)}
    views = [TrialView(t, _entry(cis[t.number])) for t in trials]
    assert [s.noise for s in frontier(report, views)] == ["", "within noise"]


def test_importance_needs_two_feasible_trials_that_differ() -> None:
    space = parse_space(SPACE)
    one = _report().model_copy(update={"trials": _report().trials[:2]})
    imp = param_importance(one, space)
    assert not imp.known and "at least 2 feasible trials" in imp.basis and "has 1" in imp.basis
    assert not param_importance(_report(), None).known


def test_importance_is_optunas_and_seeded() -> None:
    space = parse_space(SPACE)
    first = param_importance(_report(), space)
    assert first.known and set(first.shares) == {"a", "b"}
    assert sum(first.shares.values()) == pytest.approx(1.0)
    assert param_importance(_report(), space).shares == first.shares
    assert "3 feasible trials" in first.basis


def test_the_page_holds_every_part(tmp_path: Path) -> None:
    report = _report()
    page = tune_page(
        report, sections(report, tmp_path, param_importance(report, parse_space(SPACE)))
    )
    for key in (
        "table-tune-summary",
        "table-tune-trials",
        "plot-tune-score",
        "table-tune-frontier",
        "plot-tune-frontier",
        "table-tune-importance",
    ):
        assert f'id="{key}"' in page, key
    assert "gate-failed" in page and "srv --port 1 --a 1 x" in page


def test_harness_report_shows_a_tune_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tune"
    folder.mkdir()
    (folder / "space.toml").write_text(SPACE)
    (folder / "tune.json").write_text(_report().to_json())
    assert main(["report", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tune"]["name"] == "pg" and out["html"] == str(folder / "report.html")
    page = (folder / "report.html").read_text()
    assert 'id="section-tune-importance"' in page and "fANOVA" in page
    assert not (folder / "ledger.jsonl").exists()  # a tune folder is not recorded as a run


def _confirmed(report: TuneReport) -> TuneReport:
    """The search's best (trial 3) tied with trial 2 in the confirmation; trial 2 picked."""
    rec = ConfirmRecord(
        rounds=3,
        winner=3,
        min_effect_pct=2.0,
        contestants=[
            Contestant(
                trial=3,
                role="winner",
                note="a 4→1",
                status="ok",
                changes=1,
                search_score=15.0,
                confirmed_score=14.1,
                confirmed_ci95=(13.9, 14.3),
                cold_start_s=1.8,
                launch="srv --port 1 --a 1 x",
            ),
            Contestant(
                trial=2,
                role="runner-up",
                note="b x→y",
                status="ok",
                changes=1,
                search_score=4.65,
                confirmed_score=14.0,
                confirmed_ci95=(13.8, 14.2),
                cold_start_s=1.2,
                launch="srv --port 1 --a 4 y",
            ),
        ],
        comparisons=[
            Comparison(
                opponent=2,
                role="runner-up",
                pairs=3,
                lead_pct=0.7,
                ci95_pct=(-0.4, 1.8),
                call="tie",
            )
        ],
        call="tie",
        selection=SelectionRecord(
            search_score=15.0, confirmed_score=14.1, gap_pct=6.4, luck="lucky"
        ),
        pick=2,
        pick_by="a tie within noise, picked by the lower cold start",
        pick_command="srv --port 1 --a 4 y",
    )
    return report.model_copy(update={"confirm": rec})


def test_the_page_shows_the_confirmation_and_recommends_its_pick(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "tune"
    folder.mkdir()
    (folder / "space.toml").write_text(SPACE)
    (folder / "tune.json").write_text(_confirmed(_report()).to_json())
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    page = (folder / "report.html").read_text()
    for shown in (out, html.unescape(page)):
        assert "recommended" in shown and "search's best" in shown
        assert "a tie within noise with the runner-up (trial 2; +0.7 %" in shown
        assert "13.800…14.200" in shown and "lucky sample" in shown
        assert "picked by the lower cold start" in shown
    summary = page.split('id="table-tune-summary"')[1].split("</table>")[0]
    assert "srv --port 1 --a 4 y" in summary  # the pick's launch
    assert "srv --port 1 --a 1 x" not in summary  # not the search's best's
    assert 'id="table-tune-confirm-contestants"' in page
    assert 'id="table-tune-confirm-comparisons"' in page


def test_every_step_of_a_trial_says_its_result_and_the_page_shows_them(tmp_path: Path) -> None:
    """A step the trial never reached says so; one that ran but left no report says which
    file is missing; the page's steps column is tune.json's record of them."""
    planned = [k for k in KINDS if k.name in ("check", "latency", "quality", "audit")]
    steps = step_results(tmp_path, planned, ran=["check"])
    assert steps == {
        "check": "no check.json",
        "latency": "not measured",
        "quality": "not measured",
        "audit": "not measured",
    }
    record = _t(0, 4, "x", "slower", 4.6).model_copy(
        update={"steps": {"check": "checks 17/17", "latency": "4.600×", "audit": "not measured"}}
    )
    assert gates_text(TrialView(record, None)) == (
        "checks 17/17 · latency 4.600× · audit not measured"
    )


def _console_lines(report: TuneReport, folder: Path) -> list[str]:
    buf = io.StringIO()
    render_tune(Console(file=buf, width=200), report, str(folder))
    return buf.getvalue().splitlines()


def _summary_pairs(report: TuneReport, folder: Path) -> dict[str, str]:
    """The page's summary table (``tune-summary``) as figure → value."""
    [table] = [
        b
        for s in sections(report, folder, param_importance(report, None))
        for b in s.blocks
        if isinstance(b, Table) and b.key == "tune-summary"
    ]
    return {r.cells[0].text: r.cells[1].text for r in table.rows}


def test_a_best_score_over_fewer_buckets_says_so(tmp_path: Path) -> None:
    """Trials measured with ``options.buckets = "short"``: their gate's headline qualifier
    (``score_caveat``) stands beside the best trial's score, on the console and the page's
    summary, as the gate writes it (``mean speedup: short only``)."""
    report = _report()
    short = [t.model_copy(update={"score_caveat": "short only"}) for t in report.trials]
    report = report.model_copy(update={"trials": short, "best": short[3]})
    assert "best: trial 3 15.000× mean speedup: short only (a 4→1, b x→x)" in _console_lines(
        report, tmp_path
    )
    assert _summary_pairs(report, tmp_path)["best"] == (
        "trial 3: 15.000× mean speedup: short only (a 4→1, b x→x)"
    )


def test_a_best_score_over_every_bucket_is_unqualified(tmp_path: Path) -> None:
    report = _report()
    assert "best: trial 3 15.000× mean speedup (a 4→1, b x→x)" in _console_lines(report, tmp_path)
    assert _summary_pairs(report, tmp_path)["best"] == "trial 3: 15.000× (a 4→1, b x→x)"


def test_tune_json_schema_2_reads_its_trials_without_a_caveat() -> None:
    old = json.loads(_report().to_json())
    old["schema_version"] = 2
    for t in [*old["trials"], old["best"]]:
        del t["score_caveat"]
    rep = TuneReport.from_json(json.dumps(old))
    assert rep.schema_version == 3
    assert rep.best is not None and rep.best.score_caveat == ""
    assert {t.score_caveat for t in rep.trials} == {""}
