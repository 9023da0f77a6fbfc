"""The verdict's headline shows the score the grader would give (issue 27, item 11): Paris
scores 0 once its GSM8K gate fails, and the measured figure is labelled as such; a score
that is not yet the grader's carries its qualifier (a mean over fewer buckets, GSM8K not
measured) wherever the headline is shown: the gate's box, report's Gate section."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from harness.gate.judge import judge_folder
from harness.gate.render import render_gate
from harness.gate.report import GateReport, Verdict
from harness.gate.views import headline, sections
from harness.latency.report import BucketResult, LatencyReport
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.quality.report import BenchmarkResult, QualityReport
from harness.report_base import load_report
from harness.throughput.report import ThroughputReport
from harness.throughput.views import sections as throughput_sections
from harness.view.model import Text

PARIS = load_profile("gpumode-paris")
QWEN = load_profile("efficient-qwen")


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
    assert rep is not None and rep.schema_version == GateReport.SCHEMA_VERSION == 7
    assert rep.grader_score == 1.33
    assert rep.not_run == {} and rep.image is False  # schema 6: not recorded before
    assert rep.score_caveat == ""  # schema 7: not recorded before
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


def latency(*names: str) -> LatencyReport:
    """The official buckets ``names`` measured (short 20.0×, medium 10.0×, long 5.0×) and
    their mean as the score, as ``--buckets`` leaves them."""
    speedups = {"short": 20.0, "medium": 10.0, "long": 5.0}
    buckets = [
        BucketResult(
            name=n,
            mode="official",
            endpoint="/invocations",
            prompt_tokens_nominal=64,
            prompt_tokens=61,
            max_tokens=128,
            baseline_ms=1000.0 * speedups[n],
            n_ok=3,
            n_failed=0,
            median_ms=1000.0,
            speedup=speedups[n],
        )
        for n in names
    ]
    score = sum(b.speedup or 0.0 for b in buckets) / len(buckets)
    return LatencyReport(mode="official", official=buckets, score=score)


def box(rep: GateReport, width: int = 80) -> str:
    """The gate's box as the console shows it, ``width`` columns wide."""
    console = Console(width=width, record=True, color_system=None)
    render_gate(console, rep, "run")
    return console.export_text()


def gate_lines(rep: GateReport) -> list[str]:
    """The Gate section's lines as ``harness report`` and report.html show them."""
    return [
        line for s in sections(rep) for b in s.blocks if isinstance(b, Text) for line in b.lines
    ]


def test_a_score_over_fewer_buckets_says_so_in_the_headline(tmp_path) -> None:
    """``--buckets short``: the headline's figure is the mean over short only, and says so
    where it stands (issue 47's leftover), in the box and in report's Gate section."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    latency("short").save(tmp_path / "a")
    rep = judge_folder(tmp_path / "a", QWEN, Provenance(profile=QWEN.name))
    assert rep.verdict is Verdict.INCOMPLETE and rep.score_caveat == "short only"
    assert headline(rep) == "INCOMPLETE  score 20.00× (mean speedup: short only)"
    assert "╭─ INCOMPLETE  score 20.00× (mean speedup: short only) ─" in box(rep)
    assert "verdict: INCOMPLETE  score 20.00× (mean speedup: short only)" in gate_lines(rep)
    # the reason line below says it the same way
    assert any(r.text.startswith("latency score over short only: 20.00×") for r in rep.reasons)
    latency("short", "long").save(tmp_path / "b")
    two = judge_folder(tmp_path / "b", QWEN, Provenance(profile=QWEN.name))
    assert headline(two) == "INCOMPLETE  score 12.50× (mean speedup: short, long only)"


def test_a_score_over_every_bucket_is_unqualified(tmp_path) -> None:
    latency("short", "medium", "long").save(tmp_path)
    rep = judge_folder(tmp_path, QWEN, Provenance(profile=QWEN.name))
    assert rep.score_caveat == ""
    assert headline(rep).endswith("  score 11.67× (mean speedup)")


def test_paris_without_gsm8k_says_the_grader_scores_0_unless_it_passes(tmp_path) -> None:
    """GSM8K skipped (no quality.json) or without its figure (the run failed to give one):
    the measured figure heads the verdict, qualified, as the score line below says; the
    box's header holds it whole at 80 columns."""
    (tmp_path / "skipped").mkdir()
    (tmp_path / "failed").mkdir()
    sweep(4342144.24).save(tmp_path / "skipped")
    skipped = judge_folder(tmp_path / "skipped", PARIS, Provenance(profile=PARIS.name))
    expected = "INCOMPLETE  score 4,342,144 (weighted tok/s: scored 0 unless gsm8k passes)"
    assert skipped.grader_score == skipped.score == 4342144.24
    assert headline(skipped) == expected
    assert f"╭─ {expected} ─" in box(skipped, width=80)
    assert f"verdict: {expected}" in gate_lines(skipped)
    sweep(4342144.24).save(tmp_path / "failed")
    QualityReport(benchmarks=[], complete=False).save(tmp_path / "failed")
    failed = judge_folder(tmp_path / "failed", PARIS, Provenance(profile=PARIS.name))
    assert headline(failed) == expected


def test_gsm8k_measured_leaves_the_paris_score_unqualified(tmp_path) -> None:
    """Passed: the grader's score, plain; score.py failed: the grader's 0 with the measured
    figure named, never the "scored 0 unless" qualifier."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    passed = judged(tmp_path / "a", 0.915, 0.910)
    assert passed.score_caveat == ""
    assert headline(passed) == "INCOMPLETE  score 4,342,144 (weighted tok/s)"
    zeroed = judged(tmp_path / "b", 0.10, 0.10)
    assert zeroed.score_caveat == ""
    assert "unless" not in headline(zeroed)


def test_a_schema_6_gate_json_reads_without_a_caveat(tmp_path) -> None:
    (tmp_path / "gate.json").write_text(
        '{"kind": "gate", "schema_version": 6, "verdict": "INCOMPLETE", "score": 17.41,'
        ' "score_name": "mean speedup", "grader_score": 17.41}'
    )
    rep = load_report(tmp_path, GateReport)
    assert rep is not None and rep.score_caveat == ""
    assert headline(rep) == "INCOMPLETE  score 17.41× (mean speedup)"
    again = GateReport.model_validate_json(rep.model_dump_json())
    assert again.score_caveat == "" and headline(again) == headline(rep)
