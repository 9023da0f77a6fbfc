"""vlm.json saves and loads itself; `harness report` reads it into the ledger entry."""

from __future__ import annotations

from pathlib import Path

from harness.profiles import load_profile
from harness.report.entry import entry_for_folder
from harness.vlm.analysis import analyze
from harness.vlm.report import VlmReport, VlmSample
from harness.vlm.summary import VlmLedger


def test_round_trip_and_ledger_entry(tmp_path: Path) -> None:
    spec = load_profile("aicas-vlm").require_vlm()
    samples = [
        VlmSample(question_id=1, ttft_ms=40.0, throughput_ms=1000.0, throughput_tokens=110,
                  tok_s=110.0, counted=True, prediction="it says stop", answers=["stop"] * 10),
        VlmSample(question_id=2, ttft_ms=40.0, throughput_ms=1000.0, throughput_tokens=110,
                  tok_s=110.0, counted=True, prediction="no", answers=["yes"] * 10),
    ]  # fmt: skip
    rep = analyze(VlmReport(samples=samples), spec)
    rep.save(tmp_path)
    back = VlmReport.load(tmp_path)
    assert back.avg_ttft_ms == 40.0 and back.avg_throughput_tokens_per_sec == 110.0
    official = back.score("official")
    assert official is not None and official.score is not None
    # 0.4·0.5 + 0.3·(80−40)/80 + 0.3·(110−55)/55
    assert abs(official.score - (0.2 + 0.15 + 0.3)) < 1e-9
    entry = entry_for_folder(tmp_path)
    assert "vlm.json" in entry.reports
    figures = entry.part(VlmLedger).vlm
    assert figures is not None and figures.score is not None
    assert figures.avg_ttft_ms == 40.0 and figures.accuracy == 0.5
    assert abs(figures.score - 0.65) < 1e-9
