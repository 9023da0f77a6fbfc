"""What a VLM run shows, as view models: the official figures, harness's own, the plots."""

from __future__ import annotations

from harness.view import fmt
from harness.view.chart import XY, Bars, BarSeries, Boxes, BoxPanel, Lines, series_color
from harness.view.model import Figure, Section, Table, section, table, text
from harness.vlm.report import VlmReport, VlmSample


def _counted(rep: VlmReport) -> list[VlmSample]:
    return [s for s in rep.samples if s.counted and s.ttft_ms is not None]


def _ci(pair: tuple[float, float] | None, spec: str = ".2f") -> str:
    return f"95% CI {fmt.span(pair, lambda v: fmt.num(v, spec))}" if pair else ""


def figures_table(rep: VlmReport) -> Table:
    """The official means (result.json's performance block), then harness's own figures."""
    rows: list[list[str]] = [
        ["avg_ttft_ms (official)", fmt.num(rep.avg_ttft_ms, ".2f"), _ci(rep.ttft_ci_ms)],
        [
            "avg_throughput_tokens_per_sec (official)",
            fmt.num(rep.avg_throughput_tokens_per_sec, ".2f"),
            (f"{_ci(rep.tok_s_ci)}; " if rep.tok_s_ci else "")
            + f"total tokens / total time {fmt.num(rep.total_tokens_per_sec, '.2f')}",
        ],
        ["samples counted / measured", f"{rep.counted}/{len(rep.samples)}", ""],
        ["processor ms (outside TTFT)", fmt.num(rep.processor_dist.mean, ".2f"), "mean"],
    ]
    if rep.ttft_event_mean_ms is not None:
        rows.append(["TTFT by CUDA events, ms", fmt.num(rep.ttft_event_mean_ms, ".2f"), "mean"])
    if rep.ttft_ms_per_visual_token is not None:
        rows.append(
            ["TTFT ms per visual token", fmt.num(rep.ttft_ms_per_visual_token, ".4f"), "slope"]
        )
    if a := rep.accuracy:
        rows.append(
            [
                f"accuracy ({a.headline}, headline)",
                fmt.num(a.headline_value, ".3f"),
                f"vqa {fmt.num(a.vqa, '.3f')}, containment {fmt.num(a.containment, '.3f')}, "
                f"yes/no {fmt.num(a.yes_no, '.3f')} (n={a.yes_no_n})",
            ]
        )
    for s in rep.scores:
        terms = " + ".join(
            fmt.num(t, ".3f") for t in (s.accuracy_term, s.ttft_term, s.throughput_term)
        )
        ci = f"; {_ci(s.score_ci, '.3f')}" if s.score_ci else ""
        rows.append([f"score vs {s.baseline}", fmt.num(s.score, ".3f"), terms + ci])
    cols = ["figure", "value", "harness's own"]
    return table("vlm", f"AICAS VLM ({rep.mode})", cols, rows, left=["figure", "harness's own"])


def left_out_table(rep: VlmReport) -> Table:
    """Samples outside the official averages, and why."""
    rows = [
        [
            fmt.text(s.question_id),
            s.error or ("no TTFT" if s.ttft_ms is None else "not counted"),
            fmt.num(s.ttft_ms, ".2f"),
            fmt.num(s.tok_s, ".2f"),
        ]
        for s in rep.samples
        if not s.counted or s.ttft_ms is None or s.error
    ]
    cols = ["question_id", "why", "TTFT ms", "tok/s"]
    return table("vlm-left-out", "samples outside the official averages", cols, rows, left=cols[:2])


def distribution_chart(rep: VlmReport) -> Boxes | None:
    """TTFT and tok/s over the counted samples, each against the official baseline."""
    counted = _counted(rep)
    if not counted:
        return None
    official = rep.score("official")
    ttft = tuple(s.ttft_ms or 0.0 for s in counted)
    rates = tuple(s.tok_s for s in counted)
    return Boxes(
        key="vlm-distributions",
        title="per-sample TTFT and throughput (counted samples; dashed: the official baseline)",
        caption="VLM per-sample distributions",
        alt="VLM TTFT and tok/s box plots",
        panels=(
            BoxPanel(
                "TTFT (ms)", (("TTFT", ttft),), official.baseline_ttft_ms if official else None
            ),
            BoxPanel(
                "throughput (tok/s)",
                (("tok/s", rates),),
                official.baseline_tok_s if official else None,
            ),
        ),
    )


def visual_chart(rep: VlmReport) -> Lines | None:
    """TTFT against visual tokens: the cost of the image's size (the slope in the table)."""
    pts = [(float(s.visual_tokens), s.ttft_ms or 0.0) for s in _counted(rep) if s.visual_tokens]
    if len(pts) < 2:
        return None
    return Lines(
        key="vlm-visual",
        title="TTFT vs visual tokens (counted samples)",
        caption="TTFT against the image's visual tokens",
        alt="TTFT against visual tokens",
        series=(XY("", tuple(p[0] for p in pts), tuple(p[1] for p in pts)),),
        xlabel="visual tokens",
        ylabel="TTFT (ms)",
    )


def score_chart(rep: VlmReport) -> Bars | None:
    """The score's three terms per baseline (accuracy, TTFT, throughput)."""
    scores = [s for s in rep.scores if s.score is not None]
    if not scores:
        return None
    terms = (
        ("accuracy term", [s.accuracy_term for s in scores]),
        ("TTFT term", [s.ttft_term for s in scores]),
        ("throughput term", [s.throughput_term for s in scores]),
    )
    return Bars(
        key="vlm-score",
        title="score terms per baseline (their sum is the score)",
        caption="AICAS score terms",
        alt="AICAS score terms per baseline",
        categories=tuple(f"{s.baseline} ({fmt.num(s.score, '.3f')})" for s in scores),
        series=tuple(
            BarSeries(
                label,
                tuple(values),
                series_color(i),
                notes=tuple(fmt.num(v, ".3f") for v in values),
            )
            for i, (label, values) in enumerate(terms)
        ),
        ylabel="term",
        hline=0.0,
    )


def sections(rep: VlmReport) -> list[Section]:
    charts = (distribution_chart(rep), score_chart(rep), visual_chart(rep))
    return [
        section(
            "vlm",
            "AICAS VLM",
            figures_table(rep),
            left_out_table(rep),
            # non-official settings are one of the flags (vlm/flags.py: non_official)
            text(
                *(f"({f.kind.value}) {f.text}" for f in rep.flags),
                tone="warn",
                bullets=True,
                prefix="flag: ",
            ),
            *(Figure(c) for c in charts if c is not None),
        )
    ]
