"""Console output of ``harness report``: the ledger table and one run in detail."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.report.entry import LedgerEntry
from harness.report.frontier import Frontier
from harness.report.table import (
    DASH,
    VERDICT_STYLE,
    fmt_ms,
    fmt_score,
    fmt_x,
    ledger_table,
    rich_ledger,
    status,
)


def render_ledger(
    console: Console, entries: Sequence[LedgerEntry], fr: Frontier, where: str
) -> None:
    best = fr.best
    title = f"ledger: {where} (newest first; bucket columns: median latency, ms)"
    console.print(rich_ledger(ledger_table(entries, best.id if best else None), title))
    if best is not None:
        console.print(
            f"★ best: [bold]{escape(best.label())}[/] {fmt_x(best.score)} (frontier over {fr.basis})"
        )
    else:
        console.print(f"no best run: {fr.basis}")


def _verdict(e: LedgerEntry) -> str:
    if e.verdict is None:
        return "verdict: — (not gated; run harness gate RUN_DIR)"
    style = VERDICT_STYLE.get(e.verdict, "")
    return f"verdict: [bold {style}]{e.verdict}[/]"


def vlm_summary(v: dict[str, object]) -> str:
    def f(x: object, spec: str = ".3f") -> str:
        return format(x, spec) if isinstance(x, int | float) else "—"

    raw = v.get("terms")
    terms: list[object] = list(raw) if isinstance(raw, list) else []
    t = " + ".join(f(x) for x in terms) if terms else "—"
    return (
        f"avg TTFT {f(v.get('avg_ttft_ms'), '.2f')} ms, {f(v.get('avg_tok_s'), '.2f')} tok/s over "
        f"{v.get('counted')}/{v.get('samples')} samples; accuracy ({v.get('accuracy_name')}) "
        f"{f(v.get('accuracy'))}; score {f(v.get('score'))} = {t}"
    )


def render_run(console: Console, e: LedgerEntry) -> None:
    folder = f" ({escape(e.id)})" if e.name else ""
    console.print(f"[bold]{escape(e.label())}[/]{folder} · {escape(e.server.label())}")
    if e.note:
        console.print(f"note: {escape(e.note)}")
    console.print(_verdict(e) + f" · {status(e)}" + ("" if e.complete else " · partial reports"))
    for reason in e.reasons:
        console.print(f"  • {escape(reason)}")
    for mode in ("official", "strict"):
        buckets = [b for b in e.buckets if b.mode == mode]
        if not buckets:
            continue
        t = Table(title=f"{mode} latency", title_justify="left")
        for col in ("bucket", "baseline ms", "median ms", "speedup", "ok/failed"):
            t.add_column(col, justify="left" if col == "bucket" else "right")
        for b in buckets:
            t.add_row(
                b.name,
                fmt_ms(b.baseline_ms),
                fmt_ms(b.median_ms),
                fmt_x(b.speedup),
                f"{b.n_ok}/{b.n_failed}",
            )
        console.print(t)
    if e.vlm is not None:
        v = e.vlm
        console.print(f"AICAS VLM ({v.get('mode')}): " + vlm_summary(v))
    ci = f" (95% CI {fmt_x(e.score_ci95[0])}–{fmt_x(e.score_ci95[1])})" if e.score_ci95 else ""
    console.print(
        f"score: [bold]{fmt_x(e.score)}[/]{ci}"
        + (f" · strict {fmt_x(e.strict_score)}" if e.strict_score is not None else "")
    )
    if e.quality:
        t = Table(title="quality", title_justify="left")
        for col in ("benchmark", "score", "threshold", "n", "gate"):
            t.add_column(col, justify="left" if col == "benchmark" else "right")
        for q in e.quality:
            gate = DASH if q.passed is None else "[green]pass[/]" if q.passed else "[red]fail[/]"
            t.add_row(escape(q.title), fmt_score(q.score), fmt_score(q.threshold), str(q.n), gate)
        console.print(t)
    if e.checks_total is not None:
        console.print(f"checks: {e.checks_failed} of {e.checks_total} failed")
    for f in e.flags:
        console.print(f"[yellow]⚠ {escape(f.text)}[/]")
    for p in e.problems:
        console.print(f"[red]unreadable: {escape(p)}[/]")
