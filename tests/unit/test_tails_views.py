"""A tail in a table is one marker and one footnote, and no table shows a percentile its
samples can never support (harness/view/tails.py; issue 47, item 8)."""

from __future__ import annotations

from harness.latency.report import BucketResult
from harness.latency.views import bucket_table
from harness.stats.summary import Dist, dist
from harness.view.model import Table
from harness.view.tails import MARK, TailCells, column_key, phrase


def _strict(itl: list[float], lag: list[float], name: str = "short") -> BucketResult:
    return BucketResult(
        name=name,
        mode="strict",
        endpoint="/v1/completions",
        prompt_tokens_nominal=64,
        prompt_tokens=64,
        max_tokens=128,
        baseline_ms=2582.0,
        n_ok=len(lag),
        n_failed=0,
        median_ms=900.0,
        speedup=None,
        itl=dist(itl),
        dispatch_lag=dist(lag),
    )


def _cells(tab: Table, row: int = 0) -> dict[str, str]:
    return {c.header: cell.text for c, cell in zip(tab.columns, tab.rows[row].cells, strict=True)}


def _lag(n: int) -> list[float]:
    return [0.1 * (i % 7) for i in range(n)]


def test_a_column_shows_the_highest_percentile_some_row_supports() -> None:
    # LoadGen's floors at 99 %: a p90 needs 64 samples, a p95 130, a p99 662
    assert [column_key([dist([1.0] * n)]) for n in (10, 63, 64, 130, 661, 662)] == [
        "max",
        "max",
        "p90",
        "p95",
        "p95",
        "p99",
    ]
    # one row with enough is enough for the column; the others are marked
    assert column_key([dist([1.0] * 10), dist([1.0] * 700)]) == "p99"
    assert column_key([dist([1.0] * 700)], top="p90") == "p90"
    assert column_key([None, Dist()]) == "p99"  # nothing measured: the column keeps its name


def test_a_short_cell_is_marked_and_the_table_has_one_footnote() -> None:
    tails = TailCells()
    xs = [float(i) for i in range(100)]
    assert tails.text(dist(xs), "p99") == "98.0" + MARK
    assert tails.cell(dist(xs[:70]), "p99").tone == "dim"
    assert tails.text(dist(xs), "p90").startswith("89.1 (≤ ")  # enough: its estimate
    assert tails.text(dist(xs), "max") == "99.0"
    assert tails.text(None, "p99") == "—"
    assert tails.notes() == (
        f"{MARK} too few samples for a 99% claim (a p99 needs 662; these have 70–100): the "
        "samples' own percentile, below the true one more often than not",
    )
    assert TailCells().notes() == ()  # nothing marked: no footnote


def test_the_strict_table_marks_its_lag_once_and_says_what_lag_is() -> None:
    itl = [10.0 + i % 9 for i in range(50 * 128)]
    # 50 requests support no percentile of the lag: the column shows its max, unmarked
    tab = bucket_table("strict", [_strict(itl, _lag(50))])
    cells = _cells(tab)
    assert cells["ITL p99"] == "18.0 (≤ 18.0 at 99%)"
    assert cells["lag max"] == "0.6"
    assert not any(n.startswith(MARK) for n in tab.notes)
    assert any(n.startswith("lag: dispatch lag, how long after its due time") for n in tab.notes)
    # 100 requests in one bucket, 40 in another: the p90 column, the short one marked
    tab = bucket_table("strict", [_strict(itl, _lag(100)), _strict(itl, _lag(40), "long")])
    assert _cells(tab, 0)["lag p90"].startswith("0.6 (≤ 0.6 at 99%)")
    assert _cells(tab, 1)["lag p90"] == "0.6" + MARK
    [note] = [n for n in tab.notes if n.startswith(MARK)]
    assert "a p90 needs 64; these have 40" in note
    # no cell reads like a sentence: the width of a figure
    assert max(len(c.text) for r in tab.rows for c in r.cells) <= 20


def test_throughput_levels_show_the_tail_their_requests_support() -> None:
    from harness.throughput.views import _p50_tail

    tails = TailCells()
    assert _p50_tail(tails, dist([100.0] * 40), "p90") == f"100 / 100{MARK}"
    assert _p50_tail(tails, dist([float(i) for i in range(1000)]), "p99").startswith(
        "500 / 989 (≤ "
    )
    assert _p50_tail(tails, dist([]), "p99") == "—"
    assert tails.notes()[0].startswith(f"{MARK} too few samples for a 99% claim (a p90 needs 64")


def test_a_tail_in_a_sentence_is_one_its_samples_support() -> None:
    assert phrase(dist([0.5 + i / 100 for i in range(10)])) == "max 0.6"
    assert phrase(dist([float(i) for i in range(200)])) == "p95 189 (≤ 197 at 99%)"
    assert phrase(None) == "p99 —"


def test_console_and_html_print_the_footnote_once_under_the_table() -> None:
    import io

    from rich.console import Console

    from harness.report import html
    from harness.view.console import rich_table

    itl = [10.0 + i % 9 for i in range(50 * 128)]
    tab = bucket_table("strict", [_strict(itl, _lag(100)), _strict(itl, _lag(40), "long")])
    out = io.StringIO()
    Console(file=out, width=250, color_system=None).print(rich_table(tab))
    printed = out.getvalue()
    assert printed.count(MARK) == 2  # the marked cell and its footnote
    assert printed.index("└") < printed.index(f"{MARK} too few samples")  # under the table
    assert "lag: dispatch lag" in printed
    page = html.table(tab)
    assert page.count(f"{MARK} too few samples") == 1
    assert page.index("</table>") < page.index('<p class="note dim">lag: dispatch lag')


def test_a_ten_request_self_test_prints_no_p99() -> None:
    from harness.cli.selftest import error_table
    from harness.latency.report import Calibration, LatencyReport
    from harness.latency.selftest import QUICK, SelfTestResult
    from harness.latency.views import calibration_line

    ten = dist([0.2 + i / 10 for i in range(10)])
    rep = LatencyReport(mode="official", calibration=Calibration(requests=10, ttft_error_ms=ten))
    line = calibration_line(rep)
    assert line is not None
    assert line.lines == (
        "client timing error (self-test, 10 requests): median 0.65 ms, max 1.10 ms",
    )
    many = dist([0.01 * (i % 50) for i in range(10 * 16)])  # 160 chunks: a p95, no p99
    res = SelfTestResult(
        config={}, requests_ok=10, requests_failed=0, wall_s=1.0, tokens=160, tokens_per_s=160.0,
        client_cpu_s=0.1, cpu_s_per_1000_requests=10.0, ttft_error_ms=ten, ttft_error_wire_ms=ten,
        chunk_error_ms=many, itl_error_ms=many, itl_client_ms=many, dispatch_lag_ms=ten,
    )  # fmt: skip
    tab = error_table(QUICK, res)
    assert [c.header for c in tab.columns] == [
        "error vs truth", "n", "median ms", "p90 ms", "p95 ms", "max ms",
    ]  # fmt: skip
    assert tab.rows[0].cells[3].text == "1.010" + MARK  # 10 TTFT errors: a p90 short of its claim
    assert len(tab.notes) == 1 and "a p90 needs 64, a p95 needs 130; these have 10" in tab.notes[0]
