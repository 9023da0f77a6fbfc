"""The cells and lines every kind's comparison section draws (view models, harness/view/).

A kind's section views (``harness/<pkg>/compare_views.py``) build their tables from
these, so a verdict, a difference and a noise band look the same in every section.
"""

from __future__ import annotations

from harness.paired.model import ScoreDiff, Verdict
from harness.view import fmt
from harness.view.chart import Color
from harness.view.model import Cell, CellLike, Text, Tone, text

FLIPS_SHOWN = 20
TONE: dict[str, Tone] = {
    "faster": "good",
    "higher": "good",
    "slower": "bad",
    "lower": "bad",
    "within noise": "dim",
    "inconclusive": "warn",
    "no data": "warn",
}
PASSES: dict[bool | None, Tone] = {True: "good", False: "bad", None: "plain"}
COLOR: dict[str, Color] = {"faster": "good", "higher": "good", "slower": "bad", "lower": "bad"}


def verdict(word: Verdict) -> Cell:
    return Cell(word, TONE.get(word, "plain"))


def band(value: float, word: Verdict, digits: int = 1) -> str:
    """The noise band, or "?" where the runs were too short to estimate it (inconclusive)."""
    return "?" if word == "inconclusive" else f"{value:.{digits}f}"


def score_line(label: str, s: ScoreDiff, digits: int) -> Text:
    return text(
        f"{label}: A {fmt.num(s.score_a, f'.{digits}f')} → B {fmt.num(s.score_b, f'.{digits}f')}, "
        f"{fmt.signed(s.diff, digits)} ({fmt.signed(s.diff_pct)} %), "
        f"95 % CI {fmt.ci(s.ci95, digits)}, noise ±{band(s.noise, s.verdict, digits)} ({s.noise_source}) "
        f"→ {s.verdict}",
        tone=TONE.get(s.verdict, "plain"),
    )


def diff_cells(
    a: float | None,
    b: float | None,
    diff: float | None,
    pct: float | None,
    ci: tuple[float, float] | None,
    word: Verdict,
    digits: int = 1,
    noise: float | None = None,
) -> list[CellLike]:
    """A, B, B − A, its percentage of A, its 95 % CI, [the noise band,] the verdict."""
    spec = f".{digits}f"
    cells: list[CellLike] = [fmt.num(a, spec), fmt.num(b, spec), fmt.signed(diff, digits)]
    cells += [fmt.signed(pct), fmt.ci(ci, digits)]
    return cells + ([] if noise is None else [band(noise, word, digits)]) + [verdict(word)]


def flip_lines(items: list[str]) -> Text:
    more = len(items) - FLIPS_SHOWN
    shown = items[:FLIPS_SHOWN] + ([f"… {more} more flipped items (--json)"] if more > 0 else [])
    return text(*shown, bullets=True)
