"""What a sweep shows, as view models: the scored table, the per-level detail, the chart.

``level_chart`` is the one drawing of tok/s per level: throughput.png beside the
report (``throughput/chart.py``) and the plot in report.html both come from it.
"""

from __future__ import annotations

from harness.attribution import attribution_section
from harness.prompts import seed_line
from harness.stats.summary import Dist
from harness.throughput.report import ThroughputReport
from harness.throughput.scoring import SCORE
from harness.view import fmt
from harness.view.chart import Bars, BarSeries
from harness.view.model import Cell, CellLike, Figure, Section, Table, Text, section, table, text
from harness.view.tails import TailCells, column_key

LAG_NOTE = (
    "lag: dispatch lag, how long after its due time (its worker's previous answer) the client "
    "sent a request, after the first wave: the client's own delay, not the server's"
)


def _p50_tail(tails: TailCells, d: Dist, key: str, spec: str = ",.0f") -> str:
    """``p50 / tail``, the tail with what its samples can claim (harness/view/tails.py)."""
    if not d.n:
        return fmt.DASH
    return f"{fmt.num(d.p50, spec)} / {tails.text(d, key, lambda v: fmt.num(v, spec))}"


def level_table(rep: ThroughputReport) -> Table:
    """What is scored: verified tok/s per level, its weight, and the spot checks."""
    rows: list[list[CellLike]] = []
    for lv in rep.levels:
        spot = f"{sum(s.passed for s in lv.spot_checks)}/{len(lv.spot_checks)}"
        rows.append(
            [
                str(lv.concurrency),
                f"{lv.weight:g}",
                Cell(f"{lv.n_ok}/{lv.n_failed}", "bad" if lv.n_failed else "plain"),
                fmt.num(lv.wall_s),
                fmt.num(lv.tok_s, ",.0f"),
                fmt.num(lv.weighted, ",.0f"),
                fmt.num(lv.output_tok_s, ",.0f"),
                Cell(spot, "plain" if lv.spot_passed else "bad"),
            ]
        )
    cols = ["c", "weight", "ok/fail", "wall s", "tok/s", "weighted", "out tok/s", "spot"]
    title = f"throughput ({rep.endpoint}, {rep.mode} mode)"
    return table("throughput-levels", title, cols, rows, left=["c"])


def detail_table(rep: ThroughputReport) -> Table:
    """What the grader does not show: lengths, latency, dispatch lag, concurrency reached.
    The tails are the highest percentile the levels' requests support, a figure short of its
    claim marked once and footnoted (harness/view/tails.py)."""
    tails = TailCells()
    e2e_key = column_key([lv.e2e_ms for lv in rep.levels])
    lag_key = column_key([lv.dispatch_lag_steady_ms for lv in rep.levels])
    rows: list[list[CellLike]] = []
    for lv in rep.levels:
        out = lv.output_tokens_per_request
        rows.append(
            [
                str(lv.concurrency),
                f"{fmt.num(out.p50, ',.0f')} ({fmt.num(out.max, ',.0f')})",
                _p50_tail(tails, lv.e2e_ms, e2e_key),
                fmt.num(lv.first_wave_ms),
                _p50_tail(tails, lv.dispatch_lag_steady_ms, lag_key, ".2f"),
                f"{lv.concurrency_mean:.1f}/{lv.concurrency_max}",
                fmt.pct(lv.client_busy),
                Cell(str(lv.usage_mismatches), "warn" if lv.usage_mismatches else "plain"),
                Cell(str(lv.think_tags), "bad" if lv.think_tags else "plain"),
            ]
        )
    cols = ["c", "out tok/req p50 (max)", f"e2e ms p50 / {e2e_key}", "first wave ms"]
    cols += [f"lag ms p50 / {lag_key} (steady)", "in flight mean/max", "client CPU", "usage ≠"]
    cols += ["think"]
    notes = [*tails.notes(), LAG_NOTE]
    title = "per level: requests and the client"
    return table("throughput-detail", title, cols, rows, left=["c"], notes=notes)


def score_lines(rep: ThroughputReport) -> list[Text]:
    """The score as every page writes it (``SCORE.text``), and what zeroes the grader's that
    the sweep does not measure (Paris: GSM8K) with the commands that do."""
    note = "" if rep.score_complete else " (measured levels only)"
    out = [text(f"score {SCORE.text(rep.score)} ({SCORE.name}){note}", tone="strong")]
    if rep.score_gate:
        out.append(text(rep.score_gate, tone="warn"))
    if not rep.official:
        settings = ", ".join(f"{k}={v}" for k, v in rep.non_official.items())
        out.append(text(f"non-official settings: {settings}", tone="warn"))
    if rep.passed is not None:
        out.append(text("PASS" if rep.passed else "FAIL", tone="good" if rep.passed else "bad"))
    return out


def level_chart(rep: ThroughputReport) -> Bars | None:
    """Bars of tok/s per level (output tok/s beside them); None when nothing was measured."""
    levels = [lv for lv in rep.levels if lv.tok_s is not None]
    if not levels:
        return None
    total = tuple(lv.tok_s for lv in levels)
    mode = f"{rep.mode} mode" + ("" if rep.official else "; non-official settings")
    return Bars(
        key="throughput",
        title=f"throughput by level ({mode}); score {SCORE.text(rep.score)} ({SCORE.name})",
        caption="Verified tokens per second by concurrency level",
        alt="throughput bars per concurrency level",
        categories=tuple(str(lv.concurrency) for lv in levels),
        series=(
            BarSeries(
                "prompt + output tok/s (scored)",
                total,
                "s0",
                notes=tuple(fmt.num(v, ",.0f") for v in total),
            ),
            BarSeries("output tok/s", tuple(lv.output_tok_s for lv in levels), "s1"),
        ),
        xlabel="concurrency",
        ylabel="tokens / s (verified)",
    )


def run_notes(rep: ThroughputReport) -> Text:
    """The prompts' seed, the usage probes that settled something, the notes."""
    lines: list[str] = []
    if rep.provenance.seed is not None:
        drawn = rep.settings.get("seed_source") == "drawn"
        lines.append(seed_line(rep.provenance.seed, drawn, "prompts"))
    # a disagreeing probe is a flag, shown with the flags
    lines += [c.line() for c in rep.usage_checks if c.result != "disagrees"]
    lines += [f"note: {n}" for n in rep.notes]
    return text(*lines, tone="dim")


def sections(rep: ThroughputReport) -> list[Section]:
    chart = level_chart(rep)
    main = section(
        "throughput",
        "Throughput",
        level_table(rep),
        detail_table(rep),
        *score_lines(rep),
        text(*(f.text for f in rep.flags), tone="warn", bullets=True, prefix="⚠ "),
        run_notes(rep),
        Figure(chart) if chart else None,
    )
    out = [main]
    if rep.attribution is not None:
        out.append(attribution_section(rep.attribution, "throughput-attribution"))
    return out
