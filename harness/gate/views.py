"""What a gate verdict shows, as view models: the verdict, each reason, the risk flags."""

from __future__ import annotations

from harness.gate.report import GateReport, Reason, Verdict
from harness.view.model import Section, Text, Tone, section, text

TONE: dict[Verdict, Tone] = {Verdict.PASS: "good", Verdict.FAIL: "bad", Verdict.INCOMPLETE: "warn"}


def headline(rep: GateReport) -> str:
    score = "" if rep.score is None else f"  score {rep.score:.2f} ({rep.score_name})"
    return f"{rep.verdict.value}{score}"


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
