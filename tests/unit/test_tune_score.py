"""The tune's score is named and written by its speed kind's record (harness/tune/record/score.py):
latency's mean speedup with its ×, throughput's weighted tok/s without one, on the console
and on the page alike."""

from __future__ import annotations

from pathlib import Path

from harness.profiles import load_profile
from harness.registry import kind_named
from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.score import score_name, score_text, unit_of
from harness.tune.show.importance import Importance
from harness.tune.show.render import trial_line
from harness.tune.show.views import sections
from harness.tune.space import parse_space
from harness.view.model import Table
from tests.unit.test_tune_page import SPACE


def test_the_score_is_the_speed_kinds_own() -> None:
    space = parse_space(SPACE)
    for profile, kind in (("efficient-qwen", "latency"), ("gpumode-paris", "throughput")):
        score = kind_named(kind).score
        assert score is not None
        assert score_name(load_profile(profile), space) == score.name
        assert unit_of(score.name) == score.unit
    assert unit_of("mean speedup") == "×" and unit_of("weighted tok/s") == ""
    assert score_text("score", 12.5) == "12.500"  # an old tune.json's name: no unit


def _cell(name: str, score: float, tmp_path: Path) -> str:
    t = TrialRecord(number=0, params={"a": 4}, note="baseline", status="ok", score=score)
    report = TuneReport(name="t", sampler="grid", score_name=name, trials=[t], best=t)
    table = next(
        b
        for sec in sections(report, tmp_path, Importance())
        for b in sec.blocks
        if isinstance(b, Table) and b.key == "tune-trials"
    )
    column = [c.header for c in table.columns].index(f"score ({name}, 95 % CI)")
    return table.rows[0].cells[column].text


def test_the_page_and_the_console_write_the_score_as_its_kind_does(tmp_path: Path) -> None:
    assert _cell("mean speedup", 4.6, tmp_path) == "4.600×"
    assert _cell("weighted tok/s", 1234.5, tmp_path) == "1234.500"
    t = TrialRecord(number=0, params={}, note="baseline", status="ok", score=4.6)
    assert "4.600×" in trial_line(t, 1, 1, unit_of("mean speedup"))
    assert "×" not in trial_line(t, 1, 1, unit_of("weighted tok/s"))
