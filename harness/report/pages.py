"""The two HTML reports: the ledger (every run) and one run in detail."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from harness import __version__
from harness.latency.report import LatencyReport
from harness.report import html
from harness.report.compare_section import compare_section
from harness.report.entry import LedgerEntry
from harness.report.folder import latency_samples, read_run
from harness.report.frontier import frontier, waterfall
from harness.report.plots import (
    bucket_vs_baseline,
    latency_distributions,
    quality_vs_thresholds,
    score_over_runs,
    waterfall_plot,
)
from harness.report.table import DASH, fmt_ms, fmt_score, fmt_time, fmt_x, ledger_table, status
from harness.risk import texts


def _stamp(now: datetime | None) -> str:
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    return f"generated {when} by harness {__version__}"


def _baselines(e: LedgerEntry) -> dict[str, float]:
    return {b.name: b.baseline_ms for b in e.buckets if b.baseline_ms is not None}


def _distributions(folder: Path, e: LedgerEntry) -> str:
    latency = read_run(folder).get(LatencyReport)
    samples = {m: latency_samples(latency, m) for m in ("official", "strict")}
    plot = latency_distributions({m: s for m, s in samples.items() if s}, _baselines(e))
    return html.figure(plot, f"{plot.title}: {e.label()}") if plot else ""


def _quality_table(e: LedgerEntry) -> str:
    if not e.quality:
        return ""
    rows = [
        [
            q.title,
            q.metric or DASH,
            fmt_score(q.score),
            fmt_score(q.threshold),
            str(q.n),
            DASH if q.passed is None else "pass" if q.passed else "fail",
        ]
        for q in e.quality
    ]
    limit = "" if e.quality_limit is None else f"limit {e.quality_limit:g}"
    return html.table(
        ["benchmark", "metric", "score", "threshold", "n", "gate"],
        rows,
        left=["benchmark", "metric"],
    ) + html.paragraph(limit, "meta")


def ledger_page(entries: Sequence[LedgerEntry], root: Path, *, now: datetime | None = None) -> str:
    """Every recorded run: the table, score over runs, the frontier's waterfall, latest run's plots."""
    fr = frontier(entries)
    best = fr.best
    lt = ledger_table(entries, best.id if best else None)
    rows = [r.cells for r in lt.rows]
    vcol = lt.headers.index("verdict")
    cell_classes = {
        (i, vcol): r.entry.verdict for i, r in enumerate(lt.rows) if r.entry.verdict is not None
    }
    table = html.table(
        lt.headers,
        rows,
        left=["time", "run", "note", "status"],
        row_classes=["best" if r.best else "" for r in lt.rows],
        cell_classes=cell_classes,
    )
    best_text = (
        f"best: {best.label()} — score {fmt_x(best.score)} (frontier over {fr.basis})"
        if best
        else f"best: — ({fr.basis})"
    )
    latest = max(entries, key=lambda e: (e.time, e.id)) if entries else None
    parts = [
        html.section(
            "Runs (newest first; ★ marks the best)",
            html.paragraph(best_text),
            table,
            html.paragraph("bucket columns: median latency in ms (scored mode)", "meta"),
        ),
    ]
    score = score_over_runs(fr, entries)
    steps = waterfall(fr.points)
    wf = waterfall_plot(steps)
    parts.append(
        html.section(
            "Score over runs",
            html.figure(score) if score else html.paragraph("no run has a latency score yet"),
            html.figure(wf, "score change between consecutive frontier runs") if wf else "",
        )
    )
    if latest is not None:
        series = [(f"latest: {latest.label()}", latest.medians(latest.score_mode or "official"))]
        if best is not None and best.id != latest.id:
            series.append((f"best: {best.label()}", best.medians(best.score_mode or "official")))
        buckets = bucket_vs_baseline(series)
        quality = quality_vs_thresholds(latest.quality)
        parts.append(
            html.section(
                f"Latest run: {latest.label()}",
                html.verdict_line(latest.verdict),
                html.bullet_list(latest.reasons, "reasons"),
                html.bullet_list(texts(latest.flags), "flags"),
                html.figure(buckets) if buckets else "",
                _distributions(root / latest.id, latest),
                html.figure(quality) if quality else "",
                _quality_table(latest),
            )
        )
    return html.page(
        "harness — run ledger",
        f"{len(entries)} runs in {root.name}/ledger.jsonl · {_stamp(now)}",
        parts,
    )


def _bucket_rows(e: LedgerEntry, mode: str) -> list[list[str]]:
    return [
        [
            b.name,
            fmt_ms(b.baseline_ms),
            fmt_ms(b.median_ms),
            fmt_x(b.speedup),
            f"{b.n_ok}/{b.n_failed}",
        ]
        for b in e.buckets
        if b.mode == mode
    ]


def _gaps(folder: Path) -> str:
    latency = read_run(folder).get(LatencyReport)
    gaps = latency.gaps if latency is not None else []
    if not gaps:
        return ""
    rows = []
    for g in gaps:
        share = g.share_of_official_speedup
        rows.append(
            [
                g.bucket,
                fmt_x(g.official_speedup),
                fmt_x(g.strict_speedup),
                DASH if share is None else f"{round(share, 2) + 0.0:.0%}",  # no "-0%"
                g.cause or DASH,
            ]
        )
    headers = ["bucket", "official", "strict", "share of speedup", "likely cause"]
    intro = html.paragraph(
        "official vs strict: the share of the official speedup strict mode does not see"
    )
    return intro + html.table(headers, rows, left=["bucket", "likely cause"])


def run_page(folder: Path, e: LedgerEntry, *, now: datetime | None = None) -> str:
    """One run in detail: verdict and reasons, flags, buckets, distributions, quality."""
    facts: list[tuple[str, str]] = [
        ("run", e.id),
        ("name", e.name or DASH),
        ("note", e.note or DASH),
        ("profile", e.profile or DASH),
        ("server", e.server.label()),
        ("started", fmt_time(e.time)),
        ("reports", ", ".join(e.reports) or DASH),
        ("status", status(e) + ("" if e.complete else " (partial reports)")),
        ("score", fmt_x(e.score) + (f" ({e.score_mode})" if e.score_mode else "")),
        (
            "score 95% CI",
            f"{fmt_x(e.score_ci95[0])}–{fmt_x(e.score_ci95[1])}" if e.score_ci95 else DASH,
        ),
        ("strict score", fmt_x(e.strict_score)),
        (
            "checks failed",
            DASH if e.checks_total is None else f"{e.checks_failed}/{e.checks_total}",
        ),
    ]
    if e.throughput_score is not None:
        facts.append(("throughput score", f"{e.throughput_score:.3f}"))
    if e.vlm is not None:
        from harness.report.render import vlm_summary

        facts.append(("AICAS VLM", vlm_summary(e.vlm)))
    headers = ["bucket", "baseline ms", "median ms", "speedup", "ok/failed"]
    bucket_tables = [
        html.paragraph(f"{mode} mode") + html.table(headers, rows, left=["bucket"])
        for mode in ("official", "strict")
        if (rows := _bucket_rows(e, mode))
    ]
    series = [(m, e.medians(m)) for m in ("official", "strict") if e.medians(m)]
    buckets = bucket_vs_baseline(series) if series else None
    quality = quality_vs_thresholds(e.quality)
    parts = [
        html.verdict_line(e.verdict),
        html.bullet_list(e.reasons, "reasons"),
        html.section("Risk flags", html.bullet_list(texts(e.flags), "flags")),
        html.section("Unreadable reports", html.bullet_list(e.problems, "problems")),
        html.section("Run", html.facts(facts)),
        html.section(
            "Latency",
            *bucket_tables,
            html.figure(buckets) if buckets else "",
            _distributions(folder, e),
            _gaps(folder),
        ),
        html.section("Quality", html.figure(quality) if quality else "", _quality_table(e)),
        compare_section(folder),
    ]
    return html.page(f"harness — run {e.label()}", _stamp(now), parts)
