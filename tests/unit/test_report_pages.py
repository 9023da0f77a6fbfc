"""Plots are real PNGs, pages are self-contained and escape user text."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

from PIL import Image

from harness.report.entry import LedgerEntry, QualityScore, entry_for_folder
from harness.report.frontier import frontier, waterfall
from harness.report.pages import ledger_page, run_page
from harness.report.plots import (
    Plot,
    bucket_vs_baseline,
    latency_distributions,
    quality_vs_thresholds,
    score_over_runs,
    waterfall_plot,
)
from harness.risk import FlagKind, RiskFlag
from tests.unit.test_report_data import make_history, write_gate, write_latency, write_quality

IMG = re.compile(
    r'<img id="plot-([a-z]+)" class="plot" alt="[^"]*" src="data:image/png;base64,([^"]+)">'
)


def decoded(plot: Plot | None) -> Image.Image:
    assert plot is not None
    img = Image.open(io.BytesIO(base64.b64decode(plot.png_b64)))
    img.load()
    return img


def non_blank(img: Image.Image) -> bool:
    colors = img.convert("RGB").getcolors(maxcolors=1 << 16)
    return colors is None or len(colors) > 8  # more than a few flat colours: something was drawn


def test_each_plot_is_a_drawn_png(tmp_path: Path) -> None:
    es = [entry_for_folder(f) for f in make_history(tmp_path)]
    fr = frontier(es)
    plots = [
        score_over_runs(fr, es),
        waterfall_plot(waterfall(fr.points)),
        bucket_vs_baseline(
            [("latest", es[-1].medians("official")), ("best", es[1].medians("official"))]
        ),
        latency_distributions({"official": {"short": [900.0, 1000.0, 1100.0]}}, {"short": 2582.0}),
        quality_vs_thresholds(es[-1].quality),
    ]
    for plot in plots:
        img = decoded(plot)
        assert img.format == "PNG" and img.width > 300 and img.height > 200
        assert non_blank(img)


def test_nothing_to_draw_gives_no_plot() -> None:
    unscored = [LedgerEntry(id="r", time="2026-01-01T00:00:00+00:00")]
    assert score_over_runs(frontier(unscored), unscored) is None
    assert waterfall_plot([]) is None
    assert bucket_vs_baseline([("latest", {})]) is None
    assert latency_distributions({"official": {"short": []}}, {}) is None
    assert quality_vs_thresholds([QualityScore(name="x", title="X")]) is None


def test_ledger_page_is_self_contained_with_every_plot(tmp_path: Path) -> None:
    es = [entry_for_folder(f) for f in make_history(tmp_path)]
    es[0].note = '<script>alert("x")</script> & more'
    page = ledger_page(es, tmp_path)
    keys = [m.group(1) for m in IMG.finditer(page)]
    assert keys == ["score", "waterfall", "buckets", "distributions", "quality"]
    assert (
        "<script" not in page
        and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more" in page
    )
    # no network assets: nothing is fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "@import" not in page and "url(" not in page
    assert '<tr class="best">' in page and "★ 2.50×" in page


def test_run_page_shows_verdict_reasons_flags_and_gaps(tmp_path: Path) -> None:
    folder = make_history(tmp_path)[2]
    e = entry_for_folder(folder)
    e.flags = [
        RiskFlag(
            kind=FlagKind.EARLY_STOP,
            text="early-stop: 3/50 official short responses",
            source="latency",
        )
    ]
    page = run_page(folder, e)
    assert '<span class="FAIL">FAIL</span>' in page
    assert "GPQA-Diamond 0.520 &lt; 0.60" in page
    assert '<ul class="flags"><li>early-stop: 3/50 official short responses</li></ul>' in page
    assert [m.group(1) for m in IMG.finditer(page)] == ["buckets", "distributions", "quality"]


def test_run_page_of_an_ungated_latency_only_run(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    write_latency(folder, {"short": 2582.0 / 1.5}, started_at="2026-01-01T00:00:00+00:00")
    page = run_page(folder, entry_for_folder(folder))
    assert "not gated" in page and "1.50×" in page
    assert [m.group(1) for m in IMG.finditer(page)] == ["buckets", "distributions"]


def test_a_single_failing_partial_run_still_gets_every_plot(tmp_path: Path) -> None:
    folder = tmp_path / "20260101-100000-demo"
    write_latency(
        folder,
        {"short": 4000.0, "medium": 16000.0},
        started_at="2026-01-01T10:00:00+00:00",
        complete=False,
    )
    write_quality(folder, {"ifeval": (0.21, 0.85, 5)}, started_at="2026-01-01T10:05:00+00:00")
    write_gate(folder, "FAIL", reasons=("IFEval 0.210 < 0.85 (n=5, ±0.18)",))
    e = entry_for_folder(folder)
    ledger = ledger_page([e], tmp_path)
    assert [m.group(1) for m in IMG.finditer(ledger)] == [
        "score", "waterfall", "buckets", "distributions", "quality",
    ]  # fmt: skip
    assert "all scored runs; none passed the gate" in ledger
    page = run_page(folder, e)
    assert "invalid (partial reports)" in page and "IFEval 0.210 &lt; 0.85 (n=5, ±0.18)" in page
