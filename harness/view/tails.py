"""Tail percentiles in a table: one marker, one footnote, and no tail its samples never support.

harness/stats/tails.py says what a sample can claim about a percentile (MLPerf LoadGen's rule,
at 99 %); this is how every table says it (docs/timing.md, "Tails: what a percentile can
claim"):

* a column shows the highest percentile, up to the one asked for, that at least one of its
  rows has enough samples to claim (:func:`column_key`): a p99 column over 10 or 50 requests
  would never be more than the samples' own largest values, so it becomes a p90, or the
  ``max`` when no percentile is supported (10 requests);
* a cell whose samples are too few for its claim shows its figure with :data:`MARK`
  (``0.2†``), and :meth:`TailCells.notes` is the one footnote under the table saying what
  the mark means and how many samples the claim needs;
* a cell with enough samples shows its conservative estimate beside it: ``7.5 (≤ 8.1 at 99%)``.

Only the rendering changes: the reports keep every percentile and its claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from harness.stats.summary import Dist
from harness.stats.tails import CONFIDENCE, PERCENTILES, estimate_floor
from harness.view import fmt
from harness.view.model import Cell

MARK = "†"
# the percentiles a tail column may show, highest first
KEYS = ("p99", "p95", "p90")
Format = Callable[[float | None], str]


def column_key(dists: Iterable[Dist | None], top: str = "p99") -> str:
    """The percentile a tail column shows: the highest, from ``top`` down, that at least one
    row's samples can claim; ``max`` when none can. A column with no samples keeps ``top``."""
    ns = [d.n for d in dists if d is not None and d.n]
    if not ns:
        return top
    for key in KEYS[KEYS.index(top) :]:
        if max(ns) >= estimate_floor(PERCENTILES[key]):
            return key
    return "max"


def column_keys(dists: Sequence[Dist | None], tops: Sequence[str]) -> list[str]:
    """:func:`column_key` for several tail columns over the same rows, each shown once."""
    out: list[str] = []
    for top in tops:
        if (key := column_key(dists, top)) not in out:
            out.append(key)
    return out


class TailCells:
    """One table's tail cells: each marks a figure whose samples are too few for its claim,
    and :meth:`notes` is the table's one footnote about those marks."""

    def __init__(self) -> None:
        self._short: dict[str, list[int]] = {}  # key -> the sample sizes of the marked cells

    def text(self, d: Dist | None, key: str, f: Format = fmt.ms) -> str:
        """``7.5 (≤ 8.1 at 99%)``, ``0.2†`` (too few samples, noted), or the ``max``."""
        if d is None or not d.n:
            return fmt.DASH
        if key == "max":
            return f(d.max)
        value = getattr(d, key)
        claim = d.tail(key)
        if claim is None or value is None:
            return f(value)
        if claim.sufficient and claim.estimate is not None:
            return f"{f(value)} (≤ {f(claim.estimate)} at {claim.confidence:.0%})"
        if claim.sufficient:
            return f"{f(value)} (estimate not recorded)"
        self._short.setdefault(key, []).append(claim.n)
        return f"{f(value)}{MARK}"

    def cell(self, d: Dist | None, key: str, f: Format = fmt.ms) -> Cell:
        """:meth:`text` as a cell, dim when marked."""
        said = self.text(d, key, f)
        return Cell(said, "dim" if said.endswith(MARK) else "plain")

    def notes(self) -> tuple[str, ...]:
        """The footnote, once per table: ``† too few samples for a 99 % claim (a p99 needs
        662; these have 69): …``; nothing when no cell is marked."""
        if not self._short:
            return ()
        needs = ", ".join(
            f"a {k} needs {estimate_floor(PERCENTILES[k])}" for k in KEYS[::-1] if k in self._short
        )
        ns = sorted({n for sizes in self._short.values() for n in sizes})
        have = str(ns[0]) if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
        return (
            f"{MARK} too few samples for a {CONFIDENCE:.0%} claim ({needs}; these have {have}): "
            "the samples' own percentile, below the true one more often than not",
        )


def phrase(d: Dist | None, top: str = "p99", f: Format = fmt.ms) -> str:
    """A tail in a sentence, the highest percentile its samples support: ``p90 1.2 (≤ 1.4
    at 99%)``, or ``max 2.9`` below every floor (a 10-request self-test shows no p99)."""
    if d is None or not d.n:
        return f"{top} {fmt.DASH}"
    key = column_key([d], top)
    return f"{key} {TailCells().text(d, key, f)}"
