"""A trial's status is one table (harness/tune/record/status.py): every status has every
property, the console and the page show it in the same tone, and ``tune.json`` keeps the
strings it always held."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from harness.tune.record.report import TrialRecord, TuneReport
from harness.tune.record.status import CONSOLE_STYLE, GROUPS, MEANINGS, Status
from harness.tune.show.importance import Importance
from harness.tune.show.render import trial_line
from harness.tune.show.views import sections
from harness.view.console import STYLE
from harness.view.model import Table, Tone


def _records() -> list[TrialRecord]:
    return [
        TrialRecord(number=i, params={"a": i}, note=f"a={i}", status=s, why="w")
        for i, s in enumerate(Status)
    ]


def test_every_status_has_every_property() -> None:
    assert set(MEANINGS) == set(Status)
    for s in Status:
        assert isinstance(s.feasible, bool) and isinstance(s.speed_measured, bool)
        assert isinstance(s.log_shown, bool)
        assert s.tone in get_args(Tone) and s.group in GROUPS and s.style, s


def test_the_console_and_the_page_show_a_status_in_the_same_tone(tmp_path: Path) -> None:
    records = _records()
    report = TuneReport(name="t", sampler="grid", score_name="mean speedup", trials=records)
    table = next(
        b
        for sec in sections(report, tmp_path, Importance())
        for b in sec.blocks
        if isinstance(b, Table) and b.key == "tune-trials"
    )
    column = [c.header for c in table.columns].index("status")
    page = {row.cells[column].text: row.cells[column].tone for row in table.rows}
    for r in records:
        styled = re.search(r"\[(\w+)\]" + re.escape(r.status), trial_line(r, None, len(records)))
        assert styled is not None, r.status
        assert page[r.status] == r.status.tone
        assert styled.group(1) == CONSOLE_STYLE[page[r.status]], r.status
    # the console's colour of a tone is the view's own, but plain (cyan: feasible, not best)
    assert {t: s for t, s in CONSOLE_STYLE.items() if t != "plain"} == {
        t: s for t, s in STYLE.items() if t != "plain"
    }


def test_a_lost_race_is_feasible_and_never_shown_as_bad() -> None:
    # it was cyan on the console but "bad" on the page while the search counted it feasible
    assert Status.LOST_RACE.feasible and Status.LOST_RACE.tone == Status.SLOWER.tone == "plain"
    assert not any(s.feasible for s in Status if s.tone == "bad")


def test_tune_json_keeps_the_status_strings() -> None:
    report = TuneReport(name="t", sampler="grid", trials=_records())
    text = report.to_json()
    for s in Status:
        assert f'"status": "{s.value}"' in text
    back = TuneReport.from_json(text)
    assert [t.status for t in back.trials] == list(Status)
    assert all(isinstance(t.status, Status) for t in back.trials)
