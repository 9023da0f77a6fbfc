"""Repeated blocks of six or more normalised lines in ``harness/`` (bench/house_figures.py).
Not a bench."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations

# --- repeated blocks ------------------------------------------------------------------

_PUNCT = re.compile(r"[\s()\[\]{},:;.*\"']*")
_IMPORT = re.compile(r"(import|from)\s+[\w.]+(\s|$)")


def normalised_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line with its white space folded), blank lines, comments, lone
    punctuation and imports (with their continuation lines) passed over."""
    out: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = " ".join(raw.split())
        if not line or line.startswith("#") or _PUNCT.fullmatch(line) or _IMPORT.match(line):
            continue
        out.append((number, line))
    return out


@dataclass(frozen=True)
class Run:
    a: str  # path:first-last
    b: str
    lines: int  # normalised lines shared


@dataclass
class Repeats:
    pairs: list[tuple[Run, int]] = field(default_factory=list)  # longest run, other runs
    too_common: int = 0  # runs of min_lines standing in more than `most_places` places

    @property
    def runs(self) -> int:
        return sum(1 + more for _, more in self.pairs)


def repeated_blocks(files: Mapping[str, str], min_lines: int = 6, most_places: int = 8) -> Repeats:
    """The pairs of places in ``files`` that share ``min_lines`` or more consecutive
    identical normalised lines (``normalised_lines``), longest first."""
    norm = {p: normalised_lines(t) for p, t in sorted(files.items())}
    places: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for path, lines in norm.items():
        texts = [t for _, t in lines]
        for i in range(len(texts) - min_lines + 1):
            places[tuple(texts[i : i + min_lines])].append((path, i))
    found = Repeats()
    # (file a, file b, offset b - a) → start indexes in a of shared windows
    starts: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    for where in places.values():
        if len(where) > most_places:
            found.too_common += 1
            continue
        for (pa, ia), (pb, ib) in combinations(where, 2):
            if pa == pb and ib - ia < min_lines:
                continue  # one place overlapping itself
            starts[(pa, pb, ib - ia)].add(ia)
    runs: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for (pa, pb, offset), idxs in starts.items():
        for first, last in _spans(sorted(idxs)):
            n = last - first + min_lines
            la, lb = norm[pa], norm[pb]
            runs[(pa, pb)].append(
                Run(
                    f"{pa}:{la[first][0]}-{la[first + n - 1][0]}",
                    f"{pb}:{lb[first + offset][0]}-{lb[first + offset + n - 1][0]}",
                    n,
                )
            )
    for rs in runs.values():
        rs.sort(key=lambda r: (-r.lines, r.a, r.b))
        found.pairs.append((rs[0], len(rs) - 1))
    found.pairs.sort(key=lambda pr: (-pr[0].lines, pr[0].a, pr[0].b))
    return found


def _spans(idxs: list[int]) -> Iterator[tuple[int, int]]:
    """Runs of consecutive integers as (first, last)."""
    first = prev = idxs[0]
    for i in idxs[1:]:
        if i != prev + 1:
            yield first, prev
            first = i
        prev = i
    yield first, prev
