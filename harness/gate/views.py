"""What a gate verdict shows, as view models: the verdict, each reason, the risk flags."""

from __future__ import annotations

from harness.gate.report import GateReport, Reason, Verdict
from harness.view.model import Section, Text, Tone, section, text

TONE: dict[Verdict, Tone] = {Verdict.PASS: "good", Verdict.FAIL: "bad", Verdict.INCOMPLETE: "warn"}


def headline(rep: GateReport) -> str:
    """The verdict and the score the grader would give; the measured figure beside it, named
    as such, when the grader's differs (Paris: 0 once its GSM8K gate fails)."""
    graded = rep.grader_score if rep.grader_score is not None else rep.score
    if graded is None:
        return rep.verdict.value
    score = f"  score {_figure(graded)} ({rep.score_name})"
    if rep.score is not None and graded != rep.score:
        score = (
            f"  score {_figure(graded)} ({rep.score_name}: the grader's, its correctness gate"
            f" failed; measured {_figure(rep.score)})"
        )
    return f"{rep.verdict.value}{score}"


def _figure(value: float) -> str:
    return "0" if value == 0 else f"{value:.2f}"


def _mark(r: Reason) -> str:
    return "✗" if r.blocking else "…" if r.incomplete else "✓"


def reason_lines(rep: GateReport) -> list[Text]:
    """One line per reason, toned by what it does to the verdict."""
    out: list[Text] = []
    for r in rep.reasons:
        tone: Tone = "bad" if r.blocking else "warn" if r.incomplete else "good"
        out.append(text(f"{_mark(r)} {r.text}", tone=tone))
    return out


def flag_lines(rep: GateReport) -> list[Text]:
    if not rep.flags:
        return []
    how = "(failing: --strict)" if rep.strict else "(do not fail the gate; --strict to make them)"
    return [
        text(f"risk flags {how}", tone="strong"),
        text(*(f.text for f in rep.flags), tone="warn", bullets=True, prefix="⚠ "),
    ]


def sections(rep: GateReport) -> list[Section]:
    return [
        section(
            "gate",
            "Gate",
            text(f"verdict: {headline(rep)}", tone=TONE[rep.verdict]),
            *reason_lines(rep),
            *flag_lines(rep),
        )
    ]
