"""Plots are real PNGs, pages are self-contained and escape user text."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

from PIL import Image

from harness.latency.ledger import LatencyLedger
from harness.latency.views import bucket_chart, distribution_chart
from harness.quality.summary import QualityLedger, QualityScore
from harness.quality.views import score_chart
from harness.report.board import arrange
from harness.report.entry import LedgerEntry, entry_for_folder
from harness.report.frontier import frontier, waterfall
from harness.report.pages import ledger_page, run_page
from harness.report.plots import score_over_runs, waterfall_chart
from harness.view.chart import Chart
from harness.view.draw import draw
from tests.unit.test_report_data import make_history, write_gate, write_latency, write_quality

IMG = re.compile(
    r'<img id="plot-([a-z-]+)" class="plot" alt="[^"]*" src="data:image/png;base64,([^"]+)">'
)
SECTION = re.compile(r'<section id="section-([a-z-]+)">')


def decoded(chart: Chart | None) -> Image.Image:
    assert chart is not None
    img = Image.open(io.BytesIO(base64.b64decode(draw(chart).png_b64)))
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
        waterfall_chart(waterfall(fr.points)),
        bucket_chart(
            [
                ("latest", list(es[-1].part(LatencyLedger).medians("official").values())),
                ("best", list(es[1].part(LatencyLedger).medians("official").values())),
            ]
        ),
        distribution_chart({"official": {"short": [900.0, 1000.0, 1100.0]}}, {"short": 2582.0}),
        score_chart(es[-1].part(QualityLedger).quality),
    ]
    for plot in plots:
        img = decoded(plot)
        assert img.format == "PNG" and img.width > 300 and img.height > 200
        assert non_blank(img)


def test_nothing_to_draw_gives_no_plot() -> None:
    unscored = [LedgerEntry(id="r", time="2026-01-01T00:00:00+00:00")]
    assert score_over_runs(frontier(unscored), unscored) is None
    assert waterfall_chart([]) is None
    assert bucket_chart([("latest", [])]) is None
    assert distribution_chart({"official": {"short": []}}, {}) is None
    assert score_chart([QualityScore(name="x", title="X")]) is None


def test_ledger_page_is_self_contained_with_every_plot(tmp_path: Path) -> None:
    es = [entry_for_folder(f) for f in make_history(tmp_path)]
    es[0].note = '<script>alert("x")</script> & more'
    page = ledger_page(arrange(es, tmp_path), tmp_path)
    keys = [m.group(1) for m in IMG.finditer(page)]
    assert keys == ["score", "waterfall", "buckets", "distributions", "quality"]
    assert (
        "<script" not in page
        and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more" in page
    )
    # no network assets: nothing is fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "@import" not in page and "url(" not in page
    assert '<tr class="strong">' in page and "★ 2.50×" in page
    assert SECTION.findall(page) == ["runs", "score", "latest"]


def test_run_page_shows_verdict_reasons_flags_and_every_report(tmp_path: Path) -> None:
    folder = make_history(tmp_path)[2]
    write_gate(
        folder,
        "FAIL",
        reasons=("GPQA-Diamond 0.520 < 0.60",),
        flags=("early-stop: 3/50 official short responses",),
    )
    page = run_page(folder, entry_for_folder(folder))
    assert '<span class="FAIL">FAIL</span>' in page
    assert "GPQA-Diamond 0.520 &lt; 0.60" in page
    assert "<li>early-stop: 3/50 official short responses</li>" in page
    # the verdict first, then each report in the reader's order
    assert SECTION.findall(page) == ["run", "gate", "latency", "quality"]
    assert [m.group(1) for m in IMG.finditer(page)] == ["buckets", "distributions", "quality"]
    assert 'id="table-latency-official"' in page and 'id="table-quality"' in page


def test_run_page_of_an_ungated_latency_only_run(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    write_latency(folder, {"short": 2582.0 / 1.5}, started_at="2026-01-01T00:00:00+00:00")
    page = run_page(folder, entry_for_folder(folder))
    assert "not gated" in page and "1.50×" in page
    assert [m.group(1) for m in IMG.finditer(page)] == ["buckets", "distributions"]
    assert SECTION.findall(page) == ["run", "latency"]


def test_a_single_failing_partial_run_gets_its_plots_but_no_rank(tmp_path: Path) -> None:
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
    ledger = ledger_page(arrange([e], tmp_path), tmp_path)
    # a partial run of 2 of the profile's 3 buckets is shown, never ranked: no waterfall
    assert [m.group(1) for m in IMG.finditer(ledger)] == [
        "score", "buckets", "distributions", "quality",
    ]  # fmt: skip
    assert "no best run: no scored run of this group is ranked" in ledger
    assert "partial (interrupted); 2 of 3 buckets (no long)" in ledger
    assert '<tr class="strong">' not in ledger and not re.search(r"★ \d", ledger)
    page = run_page(folder, e)
    assert "invalid (partial reports)" in page and "IFEval 0.210 &lt; 0.85 (n=5, ±0.18)" in page
