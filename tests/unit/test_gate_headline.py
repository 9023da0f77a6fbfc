"""The verdict's headline shows the score the grader would give (issue 27, item 11): Paris
scores 0 once its GSM8K gate fails, and the measured figure is labelled as such."""

from __future__ import annotations

from pathlib import Path

from harness.gate.judge import judge_folder
from harness.gate.report import GateReport, Verdict
from harness.gate.views import headline
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.quality.report import BenchmarkResult, QualityReport
from harness.report_base import load_report
from harness.throughput.report import ThroughputReport
from harness.throughput.views import sections as throughput_sections
from harness.view.model import Text

PARIS = load_profile("gpumode-paris")


def gsm8k(flexible: float, strict: float) -> QualityReport:
    b = BenchmarkResult(
        name="gsm8k",
        title="GSM8K",
        task="gsm8k_cot",
        metric="exact_match,flexible-extract",
        threshold=0.875,
        score=flexible,
        n=200,
        other_metrics={"exact_match,strict-match": strict},
    )
    return QualityReport(benchmarks=[b])


def sweep(score: float) -> ThroughputReport:
    return ThroughputReport(
        url="u",
        endpoint="/v1/chat/completions",
        model="m",
        mode="official",
        official=True,
        score=score,
        score_complete=True,
    )


def judged(folder: Path, flexible: float, strict: float) -> GateReport:
    sweep(4342144.24).save(folder)
    gsm8k(flexible, strict).save(folder)
    return judge_folder(folder, PARIS, Provenance(profile=PARIS.name))


def test_a_failed_gsm8k_gate_heads_the_verdict_with_the_graders_zero(tmp_path) -> None:
    rep = judged(tmp_path, 0.10, 0.10)
    assert rep.verdict is Verdict.FAIL
    assert rep.score == 4342144.24 and rep.grader_score == 0.0
    line = headline(rep)
    assert line.startswith("FAIL  score 0 (weighted tok/s: the grader's")
    assert line.endswith("measured 4,342,144)")  # as every page writes it
    # the body says the same number
    assert any(r.text.startswith("the grader's score is 0") for r in rep.reasons)


def test_score_py_alone_zeroes_it_the_readme_alone_does_not(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    zeroed = judged(tmp_path / "a", 0.90, 0.84)  # score.py (strict-match < 0.85) fails
    assert zeroed.grader_score == 0.0
    kept = judged(tmp_path / "b", 0.87, 0.86)  # only the README's 87.5 % fails: FAIL, score kept
    assert kept.verdict is Verdict.FAIL
    assert kept.grader_score == kept.score == 4342144.24
    assert headline(kept) == "FAIL  score 4,342,144 (weighted tok/s)"


def test_a_passing_gate_shows_one_score(tmp_path) -> None:
    rep = judged(tmp_path, 0.915, 0.910)
    assert rep.grader_score == rep.score
    assert headline(rep).endswith("score 4,342,144 (weighted tok/s)")
    assert "measured" not in headline(rep)


def test_no_score_no_figure() -> None:
    rep = GateReport(verdict=Verdict.INCOMPLETE)
    assert headline(rep) == "INCOMPLETE"


def test_a_schema_3_gate_json_reads_its_score_as_the_graders(tmp_path) -> None:
    (tmp_path / "gate.json").write_text(
        '{"kind": "gate", "schema_version": 3, "verdict": "PASS", "score": 1.33,'
        ' "score_name": "mean speedup"}'
    )
    rep = load_report(tmp_path, GateReport)
    assert rep is not None and rep.schema_version == GateReport.SCHEMA_VERSION == 6
    assert rep.grader_score == 1.33
    assert rep.not_run == {} and rep.image is False  # schema 6: not recorded before
    assert headline(rep) == "PASS  score 1.33× (mean speedup)"


def test_one_figure_everywhere_and_no_check_mark_beside_a_zeroed_score(tmp_path) -> None:
    """Issue 47, item 2: the measured score is written one way in the headline, the verdict's
    lines and the sweep's own page (``KindScore.text``), and no ✓ line stands beside a
    score the grader zeroes; a score the grader keeps has its ✓ line."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    zeroed = judged(tmp_path / "a", 0.10, 0.10)
    figure = "4,342,144"
    assert f"measured {figure})" in headline(zeroed)
    texts = [r.text for r in zeroed.reasons]
    assert f"the grader's score is 0: README, score.py failed (harness measured {figure})" in texts
    plain = [r.text for r in zeroed.reasons if not r.blocking and not r.incomplete]
    assert not any("throughput score" in t for t in plain)  # no ✓ beside the zeroed score
    page = [
        line
        for s in throughput_sections(sweep(4342144.24))
        for b in s.blocks
        if isinstance(b, Text)
        for line in b.lines
    ]
    assert f"score {figure} (weighted tok/s)" in page
    kept = judged(tmp_path / "b", 0.915, 0.910)
    (line,) = [r for r in kept.reasons if r.text.startswith("throughput score")]
    assert line.text == f"throughput score {figure} (weighted tok/s)"
    assert not line.blocking and not line.incomplete
