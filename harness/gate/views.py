"""What a gate verdict shows, as view models: the verdict, each reason, the risk flags."""

from __future__ import annotations

from harness.gate.report import GateReport, Reason, Verdict
from harness.registry import KINDS
from harness.view.model import Section, Text, Tone, section, text

TONE: dict[Verdict, Tone] = {Verdict.PASS: "good", Verdict.FAIL: "bad", Verdict.INCOMPLETE: "warn"}


def score_label(name: str, caveat: str = "") -> str:
    """``mean speedup``, or with what qualifies it while it is not yet the grader's
    (``KindScore.caveat``): ``mean speedup: short only``, ``weighted tok/s: scored 0 unless
    gsm8k passes``; the gate's headline (its box, report.html) and tune's best."""
    return f"{name}: {caveat}" if caveat else name


def headline(rep: GateReport) -> str:
    """The verdict and the score the grader would give; the measured figure beside it, named
    as such, when the grader's differs (Paris: 0 once its GSM8K gate fails), or qualified
    while it is not yet the grader's (a mean over fewer buckets, GSM8K not measured). Each
    figure is written by its kind's score (``KindScore.text``: 1.47×, 5,800,834), as
    everywhere."""
    graded = rep.grader_score if rep.grader_score is not None else rep.score
    if graded is None:
        return rep.verdict.value
    label = score_label(rep.score_name, rep.score_caveat)
    score = f"  score {_figure(rep.score_name, graded)} ({label})"
    if rep.score is not None and graded != rep.score:
        score = (
            f"  score {_figure(rep.score_name, graded)} ({rep.score_name}: the grader's, its"
            f" correctness gate failed; measured {_figure(rep.score_name, rep.score)})"
        )
    return f"{rep.verdict.value}{score}"


def _figure(name: str, value: float) -> str:
    """``value`` as the kind whose score is called ``name`` writes it (2 decimals when no
    kind's score is called so: a hand-written or older gate.json)."""
    score = next((k.score for k in KINDS if k.score is not None and k.score.name == name), None)
    return score.text(value) if score is not None else f"{value:.2f}"


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
