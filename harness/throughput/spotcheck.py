"""Math spot checks: questions with known answers mixed in among the random prompts.

The grader mixes two per level in "to catch garbage output": a server that is
fast because it returns noise fails them. Official mode uses the grader's own
pool (the profile's ``spot_pool``), its order (shuffled once per run, level i
takes ``pool[(2i + j) % len]``) and its check (:func:`grader_passes`: any
unsigned number in the content within the tolerance). Strict mode keeps
harness's own seeded questions and :func:`verify` (the think block ignored).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
# the grader removes thousands commas, then reads digits with an optional decimal part
_GRADER_NUMBER = re.compile(r"\d+(?:\.\d*)?")


@dataclass(frozen=True)
class SpotCheck:
    question: str
    answer: int


def level_spots(pool: list[SpotCheck], level_index: int, per_level: int) -> list[SpotCheck]:
    """The grader's spot checks for the ``level_index``-th level of the sweep."""
    if not pool:
        return []
    start = (level_index * per_level) % len(pool)
    return [pool[(start + j) % len(pool)] for j in range(per_level)]


def grader_passes(content: str, expected: float, tolerance: float) -> bool:
    """The grader's check: some number in ``content`` (commas removed) is within ``tolerance``."""
    return any(
        abs(float(m) - expected) < tolerance
        for m in _GRADER_NUMBER.findall(content.replace(",", ""))
    )


def make_spot_checks(n: int, *, seed: int, stream: str) -> list[SpotCheck]:
    """``n`` small arithmetic questions (sums and products of two numbers), seeded."""
    rng = random.Random(f"{seed}:spot:{stream}")
    out: list[SpotCheck] = []
    for k in range(n):
        a, b = rng.randint(12, 99), rng.randint(3, 29)
        if k % 2 == 0:
            q, ans = f"What is {a} + {b}?", a + b
        else:
            q, ans = f"What is {a} times {b}?", a * b
        out.append(SpotCheck(f"{q} Answer with the number only.", ans))
    return out


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` (thousands commas allowed)."""
    out: list[float] = []
    for m in _NUMBER.finditer(text):
        try:
            out.append(float(m.group().replace(",", "")))
        except ValueError:
            continue
    return out


def strip_think(text: str, close: str = "</think>") -> str:
    return text.split(close, 1)[1] if close in text else text


def verify(answer_text: str, expected: int, think_close: str = "</think>") -> bool:
    """True when ``expected`` is one of the numbers in the answer (think block ignored)."""
    return any(v == expected for v in numbers_in(strip_think(answer_text, think_close)))


def spot_positions(n_requests: int, n_checks: int) -> list[int]:
    """Where the checks go in a level's timed list of ``n_requests + n_checks`` requests:
    spread evenly, never first or last, so they run under the level's full load."""
    total = n_requests + n_checks
    return [(k + 1) * total // (n_checks + 1) for k in range(n_checks)]
