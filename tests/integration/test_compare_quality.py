"""harness compare on two quality run folders with known flipped items: listed, McNemar p, gate.

The run folders are written here in the format `harness quality` writes
(quality.json + samples_<bench>.jsonl), with per-item correctness we choose.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main
from harness.compare.model import CompareReport
from harness.data.layout import SAMPLES_DIR
from harness.data.punkt import write_punkt_tab
from harness.provenance import Provenance
from harness.quality.compare import QualitySection
from harness.quality.report import BenchmarkResult, QualityReport
from harness.report.entry import entry_for_folder
from harness.report.pages import run_page
from harness.stats.binomial import mcnemar_exact

pytestmark = pytest.mark.timeout(180)

N = 20
THRESHOLD = 0.621


def write_run(folder: Path, correct: list[bool], answers: list[str]) -> Path:
    rows = [
        {
            "task": "mmlu_pro_math",
            "doc_id": i,
            "filter": "custom-extract",
            "prompt": f"Question {i}: ...",
            "response": f"The answer is ({answers[i]})",
            "extracted": answers[i],
            "target": "B",
            "correct": 1.0 if correct[i] else 0.0,
        }
        for i in range(N)
    ]
    folder.mkdir(parents=True)
    (folder / "samples_mmlu_pro.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    score = sum(correct) / N
    bench = BenchmarkResult(
        name="mmlu_pro",
        title="MMLU-Pro",
        task="mmlu_pro",
        metric="exact_match,custom-extract",
        threshold=THRESHOLD,
        score=score,
        passed=score >= THRESHOLD,
        n=N,
        samples_file="samples_mmlu_pro.jsonl",
    )
    QualityReport(
        limit=0.1,
        lm_eval_version="0.4.11",
        benchmarks=[bench],
        provenance=Provenance(profile="efficient-qwen"),
    ).save(folder)
    return folder


def test_flipped_items_listed_with_mcnemar_p(tmp_path, capsys):
    right_a = [i < 15 for i in range(N)]  # 15/20 = 0.75
    right_b = list(right_a)
    for i in (2, 5, 7, 11):  # four right → wrong
        right_b[i] = False
    right_b[17] = True  # one wrong → right: 12/20 = 0.60
    a = write_run(tmp_path / "a", right_a, ["B" if r else "C" for r in right_a])
    b = write_run(tmp_path / "b", right_b, ["B" if r else "D" for r in right_b])

    assert main(["compare", str(a), str(b), "--json", "--quiet"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    sec = rep.section(QualitySection)
    assert sec is not None
    (q,) = sec.benchmarks
    assert [(f.doc_id, f.correct_b) for f in q.flipped] == [
        (2, False),
        (5, False),
        (7, False),
        (11, False),
        (17, True),
    ]
    assert (q.flipped[0].answer_a, q.flipped[0].answer_b, q.flipped[0].target) == ("B", "D", "B")
    assert (q.b_only, q.a_only, q.both_right, q.both_wrong) == (1, 4, 11, 4)
    assert q.mcnemar_p == pytest.approx(mcnemar_exact(1, 4)) == pytest.approx(0.375)
    assert q.passed_a is True and q.passed_b is False
    assert q.pass_probability_b is not None and q.pass_probability_b < 0.5

    # the console lists the flipped items and the p value
    assert main(["compare", str(a), str(b), "--no-save"]) == 0
    out = capsys.readouterr().out
    assert "mmlu_pro_math#2" in out and "mmlu_pro_math#17" in out and "0.375" in out

    # report.html of B carries the compare section
    page = run_page(b, entry_for_folder(b))
    assert "Compare with a" in page and "mmlu_pro_math#11" in page
    assert 'id="plot-compare-quality"' in page


def test_other_limit_is_refused(tmp_path, capsys):
    a = write_run(tmp_path / "a", [True] * N, ["B"] * N)
    b = write_run(tmp_path / "b", [True] * N, ["B"] * N)
    data = json.loads((b / "quality.json").read_text())
    data["limit"] = 0.5
    (b / "quality.json").write_text(json.dumps(data))
    assert main(["compare", str(a), str(b)]) == 2
    err = capsys.readouterr().err
    assert "quality limit: A 0.1, B 0.5" in err


def test_real_quality_run_from_the_simulator(sim_process, tmp_path, capsys):
    """A: `harness quality` on the simulator (its samples as written); B: A with two items
    made right. compare finds exactly those, on the real per-sample format."""
    write_punkt_tab(tmp_path / "nltk")
    sim = sim_process(ttft_ms=1, itl_ms=0)
    a = tmp_path / "a"
    rc = main(
        [
            "quality",
            "--url",
            sim.url,
            "--data-dir",
            str(SAMPLES_DIR),
            "--nltk-data",
            str(tmp_path / "nltk"),
            "--only",
            "mmlu_pro",
            "--limit",
            "0.5",
            "--max-gen-toks",
            "16",
            "--out",
            str(a),
            "--quiet",
        ]
    )
    assert rc == 1  # the simulator's words answer no question right
    b = tmp_path / "b"
    shutil.copytree(a, b)
    path = b / "samples_mmlu_pro.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    flip = {"mmlu_pro_math", "mmlu_pro_law"}
    for r in rows:
        if r["task"] in flip and r["filter"] == "custom-extract":
            assert r["correct"] == 0.0
            r["correct"], r["extracted"] = 1.0, "B"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    q = json.loads((b / "quality.json").read_text())
    (bench,) = q["benchmarks"]
    for task in flip:
        bench["subtasks"][task] = 1.0
    bench["score"] = sum(bench["subtasks"].values()) / len(bench["subtasks"])
    (b / "quality.json").write_text(json.dumps(q))

    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json", "--quiet", "--no-save"]) == 0
    rep = CompareReport.model_validate(json.loads(capsys.readouterr().out))
    sec = rep.section(QualitySection)
    assert sec is not None
    (d,) = sec.benchmarks
    assert sorted(f.task for f in d.flipped) == sorted(flip)
    assert all(f.correct_b and not f.correct_a and f.answer_b == "B" for f in d.flipped)
    assert (d.b_only, d.a_only, d.n_pairs) == (2, 0, 14)
    assert d.mcnemar_p == pytest.approx(0.5)  # 2 · (1/2)^2
    assert d.diff == pytest.approx(2 / 14)


def test_a_run_b_that_cannot_take_compare_json_is_told_of_no_save(tmp_path, capsys, monkeypatch):
    """RUN_B read-only (here its compare.json is a folder, which even root cannot replace
    with a file): the comparison stands, and the note names --no-save, the flag compare
    has, not --out, which it has not (issue 34)."""
    a = write_run(tmp_path / "a", [True] * N, ["B"] * N)
    b = write_run(tmp_path / "b", [True] * N, ["B"] * N)
    (b / "compare.json").mkdir()
    monkeypatch.setenv("COLUMNS", "500")  # the note on one line, whatever the temp path
    assert main(["compare", str(a), str(b)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"note: cannot write {b / 'compare.json'}: Is a directory; pass --no-save" in out
    assert "--out" not in out
