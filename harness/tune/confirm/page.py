"""The confirmation on the tune page (``harness report TUNE_DIR`` and its report.html): the
contestants with their search and confirmed scores, the comparisons, the call, the
selection error and the pick, as view sections (pure: the record in, a Section out)."""

from __future__ import annotations

from harness.tune.confirm.view import call_text, ci_text, selection_text, signed
from harness.tune.record.confirm import ConfirmRecord
from harness.view import fmt
from harness.view.model import Cell, Column, Section, Tone, facts, section, table, text

CALL_TONE: dict[str, Tone] = {"confirmed": "good", "overturned": "bad"}


def _score(x: float | None, unit: str) -> str:
    return fmt.DASH if x is None else f"{x:.3f}{unit}"


def confirm_section(rec: ConfirmRecord, unit: str = "") -> Section:
    """The confirmation's section (its absence said when it was skipped)."""
    title = "Confirmation of the winner"
    if rec.skipped:
        return section("tune-confirm", title, text(f"skipped: {rec.skipped}", tone="dim"))
    legs = f"{rec.rounds} round(s) of fresh restarts, {len(rec.legs)} leg(s)"
    if rec.minutes is not None:
        legs += f", {rec.minutes:.1f} min"
    if not rec.complete:
        legs += " (interrupted: harness tune --resume finishes it)"
    pairs: list[tuple[str, str | Cell]] = [("measured", legs)]
    if rec.comparisons:
        first = rec.comparisons[0]
        pairs.append(("call", Cell(call_text(rec, first), CALL_TONE.get(first.call, "warn"))))
    sel = selection_text(rec, unit)
    if sel is not None:
        pairs.append(("selection error", sel))
    if rec.pick is not None:
        pairs.append(("pick", Cell(f"trial {rec.pick} — {rec.pick_by}", "good")))
    elif rec.pick_by:
        pairs.append(("pick", Cell(rec.pick_by, "bad")))
    rows: list[list[str | Cell]] = []
    for c in rec.contestants:
        ci = c.confirmed_ci95
        conf = _score(c.confirmed_score, unit)
        if ci is not None:
            conf += f" ({ci[0]:.3f}…{ci[1]:.3f})"
        cold = fmt.DASH if c.cold_start_s is None else f"{c.cold_start_s:.2f} s"
        note = c.note or fmt.DASH
        role: str | Cell = Cell(f"{c.role}; broke an SLO: {c.slo}", "bad") if c.slo else c.role
        rows.append([str(c.trial), role, _score(c.search_score, unit), conf, cold, note])
    comparisons: list[list[str | Cell]] = [
        [
            f"trial {c.opponent}",
            c.role,
            str(c.pairs),
            fmt.DASH if c.lead_pct is None else f"{signed(c.lead_pct)} %",
            ci_text(c.ci95_pct),
            Cell(c.call, CALL_TONE.get(c.call, "plain")),
        ]
        for c in rec.comparisons
    ]
    return section(
        "tune-confirm",
        title,
        facts("tune-confirm-summary", "", pairs),
        table(
            "tune-confirm-contestants",
            "Contestants",
            [
                "trial",
                Column("role", "left"),
                "search",
                "confirmed (95 % CI)",
                "cold start",
                Column("change from the baseline", "left", wrap=True),
            ],
            rows,
        ),
        table(
            "tune-confirm-comparisons",
            "The winner against each opponent",
            [
                Column("opponent", "left"),
                Column("role", "left"),
                "rounds",
                "lead",
                "95 % CI",
                "call",
            ],
            comparisons,
        ),
    )
