"""Console rendering of a VLM run: the official figures, then harness's own."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from harness.vlm.report import VlmReport


def _f(x: float | None, fmt: str = ".2f") -> str:
    return "—" if x is None else format(x, fmt)


def render_vlm(console: Console, rep: VlmReport, where: str) -> None:
    t = Table(title=f"AICAS VLM ({rep.mode})", show_header=True)
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("harness's own", justify="left")
    ci = rep.ttft_ci_ms
    t.add_row(
        "avg_ttft_ms (official)",
        _f(rep.avg_ttft_ms),
        f"95% CI {_f(ci[0])}–{_f(ci[1])}" if ci else "",
    )
    ci = rep.tok_s_ci
    t.add_row(
        "avg_throughput_tokens_per_sec (official)",
        _f(rep.avg_throughput_tokens_per_sec),
        (f"95% CI {_f(ci[0])}–{_f(ci[1])}; " if ci else "")
        + f"total tokens / total time {_f(rep.total_tokens_per_sec)}",
    )
    t.add_row("samples counted / measured", f"{rep.counted}/{len(rep.samples)}", "")
    t.add_row("processor ms (outside TTFT)", _f(rep.processor_dist.mean), "mean")
    if rep.ttft_event_mean_ms is not None:
        t.add_row("TTFT by CUDA events, ms", _f(rep.ttft_event_mean_ms), "mean")
    if rep.ttft_ms_per_visual_token is not None:
        t.add_row("TTFT ms per visual token", _f(rep.ttft_ms_per_visual_token, ".4f"), "slope")
    if rep.accuracy:
        a = rep.accuracy
        t.add_row(
            f"accuracy ({a.headline}, headline)",
            _f(a.headline_value, ".3f"),
            f"vqa {_f(a.vqa, '.3f')}, containment {_f(a.containment, '.3f')}, "
            f"yes/no {_f(a.yes_no, '.3f')} (n={a.yes_no_n})",
        )
    for s in rep.scores:
        terms = f"{_f(s.accuracy_term, '.3f')} + {_f(s.ttft_term, '.3f')} + {_f(s.throughput_term, '.3f')}"
        ci_s = (
            f"; 95% CI {_f(s.score_ci[0], '.3f')}–{_f(s.score_ci[1], '.3f')}" if s.score_ci else ""
        )
        t.add_row(f"score vs {s.baseline}", _f(s.score, ".3f"), terms + ci_s)
    console.print(t)
    for f in rep.flags:
        console.print(f"[yellow]flag:[/] {f}")
    console.print(f"wrote vlm.json + result.json in {where}")
