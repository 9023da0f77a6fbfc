"""What a latency run shows, as view models: the bucket tables, the gap, the plots, attribution.

One builder per table or plot; the console (``latency/console.py``) and
report.html render the same sections. The plot builders take any bucket-like
record, so the ledger page draws its runs with them too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from harness.attribution import attribution_section
from harness.latency import until_ci
from harness.latency.network_views import network_section_view
from harness.latency.report import BucketResult, LatencyReport
from harness.prompts import seed_line
from harness.view import fmt
from harness.view.chart import Bars, BarSeries, Boxes, BoxPanel, series_color
from harness.view.model import (
    Cell,
    CellLike,
    Figure,
    Section,
    Table,
    Text,
    section,
    table,
    text,
)
from harness.view.tails import TailCells, column_key, phrase

GAP_NOTE = "share of speedup: the part of the official speedup that strict mode does not see"


class BucketFigures(Protocol):
    """What the bucket plot needs: latency.json's buckets and the ledger's medians have it."""

    @property
    def name(self) -> str: ...
    @property
    def median_ms(self) -> float | None: ...
    @property
    def baseline_ms(self) -> float | None: ...
    @property
    def speedup(self) -> float | None: ...


def not_graders(rep: LatencyReport) -> str:
    """``not the grader's procedure (1 of 3 buckets; 10 runs / 1 warm-up)``, or "" when the
    runs, warm-ups and buckets are the grader's (``settings.departures``, from the profile)."""
    what = rep.settings.get("departures")
    return f"not the grader's procedure ({what})" if what else ""


LAG_NOTE = (
    "lag: dispatch lag, how long after its due time the client sent a request (the client's "
    "own delay, not the server's; docs/timing.md)"
)


def _tail_at(buckets: Sequence[BucketResult]) -> str | None:
    """The percentile --until-ci stopped the buckets on (``--until-ci-at p90``), if any: the
    table shows that E2E figure, the one the run's interval is of."""
    ats = {b.until_ci.at for b in buckets if b.until_ci is not None}
    return next((at for at in sorted(ats) if at != "median"), None)


def _median(b: BucketResult) -> str:
    """``148 (147–149)``: the median and, beside it, its own 95 % interval."""
    if b.median_ms is None or b.median_ci95 is None:
        return fmt.ms(b.median_ms)
    return f"{fmt.ms(b.median_ms)} ({fmt.span(b.median_ci95)})"


def bucket_table(mode: str, buckets: Sequence[BucketResult], departed: str = "") -> Table:
    """``departed``: :func:`not_graders`, shown instead of "grader's procedure". Tail columns
    show the highest percentile their samples support, a figure short of its claim marked
    once and footnoted (harness/view/tails.py)."""
    strict = mode == "strict"
    early = any(b.until_ci is not None and b.until_ci.stopped_early for b in buckets)
    how = "stopped early by --until-ci: an estimate" if early else "grader's procedure"
    how = "streamed, unique prompts" if strict else how
    title = f"{mode} ({buckets[0].endpoint}, {how})" if buckets else mode
    if buckets and departed and not strict and not early:
        title = f"{mode} ({buckets[0].endpoint}) — {departed}"
    tails = TailCells()
    at = _tail_at(buckets)
    itl_key = column_key([b.itl for b in buckets])
    lag_key = column_key([b.dispatch_lag for b in buckets])
    cols = ["bucket", "prompt", "output", "ok/fail", "baseline", "median ms (95% CI)"]
    cols += [f"e2e {at}"] if at else []
    cols += ["speedup"]
    if strict:
        cols += ["TTFT p50", "TPOT p50", f"ITL {itl_key}", f"lag {lag_key}"]
    rows: list[list[Cell | str]] = []
    for b in buckets:
        mean = b.output_tokens_mean
        out = fmt.DASH if mean is None else f"{mean:.0f}/{b.max_tokens}"
        row: list[Cell | str] = [
            b.name,
            fmt.text(b.prompt_tokens),
            Cell(out, "warn" if b.n_short_outputs else "plain"),
            Cell(f"{b.n_ok}/{b.n_failed}", "bad" if b.n_failed else "plain"),
            fmt.ms(b.baseline_ms),
            _median(b),
        ]
        row += [tails.cell(b.e2e, at)] if at else []
        row += [fmt.times(b.speedup)]
        if strict:
            row += [
                fmt.ms(b.ttft.median if b.ttft else None),
                fmt.ms(b.tpot.median if b.tpot else None),
                tails.cell(b.itl, itl_key),
                tails.cell(b.dispatch_lag, lag_key),
            ]
        rows.append(row)
    notes = [*tails.notes(), LAG_NOTE if strict else ""]
    return table(f"latency-{mode}", title, cols, rows, left=["bucket"], notes=notes)


def gap_table(rep: LatencyReport) -> Table:
    rows: list[list[CellLike]] = [
        [
            g.bucket,
            fmt.times(g.official_speedup),
            fmt.times(g.strict_speedup),
            fmt.pct(g.share_of_official_speedup),
            Cell(g.cause or fmt.DASH),
        ]
        for g in rep.gaps
    ]
    cols = ["bucket", "official", "strict", "share of speedup", "likely cause"]
    return table("latency-gaps", "official vs strict", cols, rows, left=["bucket", "likely cause"])


def score_lines(rep: LatencyReport) -> Text:
    ci = (
        f" (95% CI {fmt.span(rep.score_ci95, lambda v: fmt.num(v, '.2f'))})"
        if rep.score_ci95
        else ""
    )
    label = "score (mean speedup)" if rep.official else "strict score (mean speedup)"
    partial = "" if rep.complete else "  (partial run)"
    departed = not_graders(rep)
    lines = [
        f"{label}: {fmt.times(rep.score)}{ci}{partial}" + (f" — {departed}" if departed else "")
    ]
    if rep.strict_score is not None:
        lines.append(f"strict score: {fmt.times(rep.strict_score)}")
    return text(*lines, tone="bad" if not rep.complete else "warn" if departed else "strong")


def until_ci_lines(rep: LatencyReport) -> Text:
    """``--until-ci``: per bucket, the statistic it stopped on, its interval and why it stopped
    (``until-ci strict short: stopped after 69 of 100 runs: p90 150 ms, 95 % interval …``)."""
    every = [*rep.official, *rep.strict]
    lines = [f"until-ci {b.mode} {b.name}: {until_ci.why(b)}" for b in every if b.until_ci]
    return text(*lines)


def _ms2(v: float | None) -> str:
    return f"{fmt.num(v, '.2f')} ms"


def calibration_line(rep: LatencyReport) -> Text | None:
    """The self-test's client error: its median and the highest tail its requests support
    (10 requests support none: their largest error, which the ``self_test_error`` flag reads)."""
    if rep.calibration is None or not rep.calibration.ttft_error_ms.n:
        return None
    c = rep.calibration.ttft_error_ms
    return text(
        f"client timing error (self-test, {c.n} requests): median {fmt.num(c.median, '.2f')} "
        f"ms, {phrase(c, 'p99', _ms2)}",
        tone="dim",
    )


def run_notes(rep: LatencyReport) -> Text:
    """The strict prompts' seed, the usage probes that settled something, the notes."""
    lines: list[str] = []
    if rep.strict and rep.provenance.seed is not None:
        lines.append(seed_line(rep.provenance.seed, rep.settings.get("seed_source") == "drawn"))
    # a disagreeing probe is a flag, shown with the flags
    lines += [c.line() for c in rep.usage_checks if c.result != "disagrees"]
    lines += [f"note: {n}" for n in rep.notes]
    return text(*lines, tone="dim")


def bucket_chart(
    series: Sequence[tuple[str, Sequence[BucketFigures]]], key: str = "buckets"
) -> Bars | None:
    """Grouped bars per bucket: the baseline median, then each series' measured median."""
    names: list[str] = []
    for _, buckets in series:
        names += [b.name for b in buckets if b.name not in names]
    if not names:
        return None
    by = [{b.name: b for b in buckets} for _, buckets in series]
    baselines = {n: b.baseline_ms for d in by for n, b in d.items() if b.baseline_ms is not None}
    bars = [BarSeries("baseline", tuple(baselines.get(n) for n in names), "baseline")]
    for i, ((label, _), d) in enumerate(zip(series, by, strict=True)):
        values = tuple(d[n].median_ms if n in d else None for n in names)
        notes = tuple(
            "" if n not in d or d[n].speedup is None else f"{d[n].speedup:.2f}x" for n in names
        )
        bars.append(BarSeries(label, values, series_color(i), notes=notes))
    return Bars(
        key=key,
        title="per-bucket median latency vs baseline (speedup above each bar)",
        caption="Latency per bucket vs baseline",
        alt="per-bucket latency bars",
        categories=tuple(names),
        series=tuple(bars),
        ylabel="median latency (ms)",
    )


def samples(rep: LatencyReport | None, mode: str) -> dict[str, list[float]]:
    """Timed, successful E2E latencies per bucket (ms), from ``latency.json``'s ``requests``."""
    out: dict[str, list[float]] = {}
    for row in rep.requests if rep is not None else []:
        if row.mode != mode or row.phase != "timed" or not row.ok or row.e2e_ms is None:
            continue
        out.setdefault(row.bucket, []).append(row.e2e_ms)
    return out


def distribution_chart(
    per_mode: Mapping[str, Mapping[str, Sequence[float]]],
    baselines: Mapping[str, float],
    caption: str = "Latency distributions",
    key: str = "distributions",
) -> Boxes | None:
    """One panel per bucket: a box per mode over timed E2E latencies, the baseline dashed."""
    buckets: list[str] = []
    for per_bucket in per_mode.values():
        buckets += [b for b, xs in per_bucket.items() if xs and b not in buckets]
    if not buckets:
        return None
    panels = []
    for b in buckets:
        base = baselines.get(b)
        groups = tuple((m, tuple(xs[b])) for m, xs in per_mode.items() if xs.get(b))
        title = b if base is None else f"{b} (baseline {base:,.0f} ms)"
        panels.append(BoxPanel(title, groups, base, "baseline"))
    return Boxes(
        key=key,
        title="latency distributions (timed, successful requests)",
        caption=caption,
        alt="latency box plots",
        panels=tuple(panels),
        ylabel="E2E latency (ms)",
    )


def baselines(rep: LatencyReport) -> dict[str, float]:
    return {b.name: b.baseline_ms for b in [*rep.official, *rep.strict]}


def sections(rep: LatencyReport) -> list[Section]:
    """The latency section (tables, score, flags, plots) and the attribution section."""
    measured = [(m, bs) for m, bs in (("official", rep.official), ("strict", rep.strict)) if bs]
    bars = bucket_chart(measured)
    boxes = distribution_chart({m: samples(rep, m) for m, _ in measured}, baselines(rep))
    main = section(
        "latency",
        "Latency",
        *(bucket_table(m, bs, not_graders(rep)) for m, bs in measured),
        gap_table(rep),
        text(GAP_NOTE if rep.gaps else "", tone="dim"),
        until_ci_lines(rep),
        score_lines(rep),
        calibration_line(rep),
        text(*(f.text for f in rep.flags), tone="warn", bullets=True, prefix="⚠ "),
        run_notes(rep),
        Figure(bars) if bars else None,
        Figure(boxes) if boxes else None,
    )
    out = [main]
    if rep.network is not None:
        out.append(network_section_view(rep.network, rep.score))
    if rep.attribution is not None:
        out.append(attribution_section(rep.attribution, "latency-attribution"))
    return out
