"""Every printed p99 carries what its samples can claim (harness/tails.py) in the views."""

from __future__ import annotations

from harness.latency.report import BucketResult
from harness.latency.views import bucket_table
from harness.stats import dist


def _strict(itl: list[float]) -> BucketResult:
    return BucketResult(
        name="short",
        mode="strict",
        endpoint="/v1/completions",
        prompt_tokens_nominal=64,
        prompt_tokens=64,
        max_tokens=128,
        baseline_ms=2582.0,
        n_ok=50,
        n_failed=0,
        median_ms=900.0,
        speedup=None,
        itl=dist(itl),
        dispatch_lag=dist([0.1 * (i % 7) for i in range(50)]),
    )


def test_strict_itl_p99_says_how_much_it_claims() -> None:
    tab = bucket_table("strict", [_strict([10.0 + i % 9 for i in range(50 * 128)])])
    cells = {c.header: cell for c, cell in zip(tab.columns, tab.rows[0].cells, strict=True)}
    assert cells["ITL p99"].text == "18.0 (≤ 18.0 at 99%)"
    assert cells["lag p99"].text == "0.6, not enough samples (50 of 662 needed)"
    assert cells["lag p99"].tone == "dim"


def test_throughput_levels_print_their_p99_with_its_claim() -> None:
    from harness.throughput.views import _p50_p99

    assert _p50_p99(dist([100.0] * 40)) == "100 / 100, not enough samples (40 of 662 needed)"
    assert _p50_p99(dist([float(i) for i in range(1000)])).startswith("500 / 989 (≤ ")
    assert _p50_p99(dist([])) == "—"
