"""The ledger: entries built from run folders, appended, read back, re-recorded, indexed."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.conformance.summary import CheckLedger
from harness.errors import IncompleteError, UsageError
from harness.latency.ledger import LatencyLedger
from harness.latency.report import LatencyReport
from harness.quality.summary import QualityLedger
from harness.report.entry import LedgerEntry, entry_for_folder
from harness.report.ledger import (
    LEDGER_FILENAME,
    append_entry,
    index_folders,
    ledger_path_for,
    read_ledger,
    record_run,
)
from harness.risk import texts
from harness.throughput.summary import ThroughputLedger
from tests.unit.test_report_data import (
    MODELS,
    URL,
    make_history,
    make_run,
    write_gate,
    write_latency,
    write_quality,
)

T0 = "2026-01-01T10:00:00+00:00"
GOOD_Q = {"mmlu_pro": (0.71, 0.70, 120), "ifeval": (0.80, 0.85, 54)}


def test_entry_summarises_every_report(tmp_path: Path) -> None:
    folder = make_run(
        tmp_path,
        "20260101-100000-awq",
        started_at=T0,
        medians={"short": 1291.0, "medium": 2720.5, "long": 3288.0},
        quality=GOOD_Q,
        verdict="FAIL",
        reasons=("IFEval 0.800 < 0.85",),
        flags=("early-stop: 3/50 official short responses stopped before max_tokens",),
    )
    e = entry_for_folder(folder, name="awq", note="AWQ int4 weights")
    assert (e.id, e.name, e.note, e.profile, e.time) == (
        "20260101-100000-awq",
        "awq",
        "AWQ int4 weights",
        "efficient-qwen",
        T0,
    )
    assert e.server.url == URL and e.server.models == MODELS
    assert e.reports == ["latency.json", "quality.json", "gate.json"]
    latency, quality = e.part(LatencyLedger), e.part(QualityLedger)
    assert [(b.name, b.mode, b.median_ms, b.baseline_ms) for b in latency.buckets] == [
        ("short", "official", 1291.0, 2582.0),
        ("medium", "official", 2720.5, 5441.0),
        ("long", "official", 3288.0, 6576.0),
    ]
    assert e.score == pytest.approx(2.0)
    assert e.score_mode == "official"
    assert [(q.name, q.score, q.threshold, q.passed, q.n) for q in quality.quality] == [
        ("mmlu_pro", 0.71, 0.70, True, 120),
        ("ifeval", 0.80, 0.85, False, 54),
    ]
    assert quality.quality_limit == 0.1
    assert (e.verdict, e.reasons, e.valid, e.risky) == (
        "FAIL",
        ["IFEval 0.800 < 0.85"],
        False,
        True,
    )
    assert e.complete and e.problems == []


def test_latency_only_run_is_not_gated_and_shows_latency_flags(tmp_path: Path) -> None:
    write_latency(
        tmp_path / "r", {"short": 2000.0}, started_at=T0, flags=("failures: 2 timed requests",)
    )
    e = entry_for_folder(tmp_path / "r")
    assert e.verdict is None and not e.valid
    assert texts(e.flags) == ["failures: 2 timed requests"] and e.risky  # migrated from a string
    assert e.part(QualityLedger).quality == [] and e.part(CheckLedger).checks_total is None
    assert e.part(ThroughputLedger).throughput_score is None


def test_strict_only_run_scores_in_strict_mode(tmp_path: Path) -> None:
    write_latency(tmp_path / "r", {"short": 1291.0}, started_at=T0, mode="strict")
    e = entry_for_folder(tmp_path / "r")
    medians = e.part(LatencyLedger).medians("strict")
    assert e.score_mode == "strict" and medians["short"].speedup == 2.0


def test_broken_and_odd_reports_never_crash(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "latency.json").write_text("{not json", encoding="utf-8")
    (folder / "quality.json").write_text("[1, 2]", encoding="utf-8")
    gate = {"kind": "gate", "schema_version": 2, "verdict": "maybe", "complete": False}
    (folder / "gate.json").write_text(json.dumps(gate), encoding="utf-8")
    check = {"kind": "check", "schema_version": 1, "url": URL, "checks": [{"name": "ping"}]}
    (folder / "check.json").write_text(json.dumps(check), encoding="utf-8")
    e = entry_for_folder(folder)
    # each names the file, what is wrong, and what to do
    assert all(
        p.endswith(" — re-run the command that wrote it, or move the file away") for p in e.problems
    )
    assert [p.split(" — ")[0].split(" (")[0].split(": ")[:2] for p in e.problems] == [
        ["check.json", "does not match the CheckReport schema"],
        ["latency.json", "not valid JSON"],
        ["quality.json", "not a JSON object"],
        ["gate.json", "does not match the GateReport schema"],
    ]
    assert e.reports == [] and e.verdict is None and e.reasons == [] and e.flags == []
    assert e.part(CheckLedger).checks_total is None
    assert e.score is None and e.part(LatencyLedger).buckets == []


def test_a_report_of_a_newer_harness_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    folder = make_run(tmp_path, "r", started_at=T0, medians={"short": 1291.0})
    data = json.loads((folder / "latency.json").read_text(encoding="utf-8"))
    data["schema_version"] = 99
    data["provenance"]["harness_version"] = "9.9.9"
    (folder / "latency.json").write_text(json.dumps(data), encoding="utf-8")
    e = entry_for_folder(folder)
    (problem,) = e.problems
    assert problem.startswith("latency.json: schema_version 99 (written by harness 9.9.9)")
    assert problem.endswith("read it with harness 9.9.9 or newer")
    assert e.reports == ["gate.json"] and e.verdict == "PASS"
    assert e.part(LatencyLedger).buckets == []


def test_record_run_appends_to_the_parent_ledger_and_reads_back(tmp_path: Path) -> None:
    folder = make_run(tmp_path, "run-a", started_at=T0, medians={"short": 1291.0})
    entry = record_run(folder, "first", "baseline")
    path = tmp_path / LEDGER_FILENAME
    assert ledger_path_for(folder) == path
    line = json.loads(path.read_text(encoding="utf-8"))
    assert (line["id"], line["valid"], line["risky"], line["schema_version"]) == (
        "run-a",
        True,
        False,
        3,
    )
    assert read_ledger(path).entries == [entry]


def test_re_recording_keeps_one_entry_with_its_name_and_note(tmp_path: Path) -> None:
    folder = tmp_path / "run-a"
    write_latency(folder, {"short": 1291.0}, started_at=T0)
    record_run(folder, "awq", "AWQ int4")
    write_gate(folder, "PASS")  # gated later: recorded again without a name
    again = record_run(folder, None, "")
    contents = read_ledger(tmp_path / LEDGER_FILENAME)
    assert len((tmp_path / LEDGER_FILENAME).read_text().splitlines()) == 2
    assert contents.entries == [again]
    assert (again.name, again.note, again.verdict) == ("awq", "AWQ int4", "PASS")


def test_a_run_folder_elsewhere_records_into_its_own_parent(tmp_path: Path) -> None:
    elsewhere = tmp_path / "scratch" / "my-run"
    write_latency(elsewhere, {"short": 2582.0}, started_at=T0)
    record_run(elsewhere, None, "")
    assert (tmp_path / "scratch" / LEDGER_FILENAME).is_file()
    assert not (tmp_path / LEDGER_FILENAME).exists()


def test_ledger_skips_torn_lines_and_sorts_by_start_time(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILENAME
    late = LedgerEntry(id="b", time="2026-01-02T00:00:00+00:00", score=2.0)
    early = LedgerEntry(id="a", time="2026-01-01T00:00:00+00:00", score=1.0)
    append_entry(path, late)
    with path.open("a", encoding="utf-8") as f:
        f.write('{"id": "torn", "ti\n\n[]\n')
    append_entry(path, early)
    contents = read_ledger(path)
    assert [e.id for e in contents.entries] == ["a", "b"]
    assert contents.skipped == 2


def test_a_missing_ledger_is_empty(tmp_path: Path) -> None:
    contents = read_ledger(tmp_path / LEDGER_FILENAME)
    assert contents.entries == [] and contents.skipped == 0


def test_record_run_refuses_what_is_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such run folder"):
        record_run(tmp_path / "nope", None, "")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IncompleteError, match="no report in this folder"):
        record_run(tmp_path / "empty", None, "")


def test_index_adds_missing_folders_only_unless_reindexing(tmp_path: Path) -> None:
    folders = make_history(tmp_path)
    (tmp_path / "not-a-run").mkdir()
    record_run(folders[0], "base", "the baseline")
    added = index_folders(tmp_path)
    assert [e.id for e in added] == [f.name for f in folders[1:]]
    assert index_folders(tmp_path) == []
    again = index_folders(tmp_path, reindex=True)
    assert len(again) == 4 and again[0].name == "base" and again[0].note == "the baseline"
    assert len(read_ledger(tmp_path / LEDGER_FILENAME).entries) == 4


def test_quality_without_latency_still_records(tmp_path: Path) -> None:
    folder = tmp_path / "q-only"
    folder.mkdir()
    write_quality(folder, GOOD_Q, started_at=T0)
    e = record_run(folder, None, "")
    assert e.score is None and e.server.url == URL and e.server.models == ["Qwen/Qwen3.5-4B"]
    assert [q.title for q in e.part(QualityLedger).quality] == ["MMLU-Pro", "IFEval"]


def test_indexing_takes_name_and_note_from_the_provenance(tmp_path: Path) -> None:
    folder = tmp_path / "20260101-100000-sim"
    report = write_latency(folder, {"short": 1291.0}, started_at=T0)
    report.provenance.name, report.provenance.note = "sim", "prefix cache on"
    # the recorded command line is never parsed for them
    report.provenance.command_line = ["harness", "latency", "--name", "other", "--note", "x"]
    report.save(folder)
    [entry] = index_folders(tmp_path)
    assert (entry.name, entry.note) == ("sim", "prefix cache on")
    given = record_run(folder, "renamed", "")
    assert (given.name, given.note) == ("renamed", "prefix cache on")


def test_an_older_reports_name_and_note_are_migrated_from_its_command_line(
    tmp_path: Path,
) -> None:
    """Reports written before provenance had typed name and note: the reader migrates them."""
    folder = tmp_path / "20260101-100000-sim"
    write_latency(folder, {"short": 1291.0}, started_at=T0)
    data = json.loads((folder / "latency.json").read_text())
    del data["provenance"]["name"], data["provenance"]["note"]
    data["provenance"]["command_line"] = [
        "harness", "latency", "--url", URL, "--name", "sim", "--note=prefix cache on",
    ]  # fmt: skip
    (folder / "latency.json").write_text(json.dumps(data))
    migrated = LatencyReport.load(folder)
    assert (migrated.provenance.name, migrated.provenance.note) == ("sim", "prefix cache on")
    [entry] = index_folders(tmp_path)
    assert (entry.name, entry.note) == ("sim", "prefix cache on")


def test_concurrent_appends_never_tear_a_line(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_FILENAME
    flags = ["x" * 200] * 20  # ~4 KB lines: bigger than one small write

    def write(worker: int) -> None:
        for i in range(25):
            append_entry(path, LedgerEntry(id=f"w{worker}-{i}", time=T0, flags=flags))

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(write, range(4)))
    contents = read_ledger(path)
    assert contents.skipped == 0 and len(contents.entries) == 100


def test_a_ledger_line_of_an_older_schema_is_read_again_from_its_folder(tmp_path: Path) -> None:
    folder = make_run(tmp_path, "run-a", started_at=T0, medians={"short": 1291.0})
    old = json.loads(entry_for_folder(folder).to_line())
    old["schema_version"] = 2
    del old["procedure"], old["experiment"]
    (tmp_path / LEDGER_FILENAME).write_text(json.dumps(old) + "\n", encoding="utf-8")
    assert [e.id for e in index_folders(tmp_path)] == ["run-a"]
    (entry,) = read_ledger(tmp_path / LEDGER_FILENAME).entries
    assert entry.schema_version == 3
    assert index_folders(tmp_path) == []  # read once, not on every report
