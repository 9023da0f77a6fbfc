"""The timed rounds' one comparison: the repeated filler's time per output token against
its near-filler control's (docs/audit.md, "The rules"), which ``cached_answers`` and
``benchmark_detection`` both judge: the pairs (answers of comparable length, each role's
slow outliers left out), their ratio, and a look's noise and standard error.

No I/O, no clocks: tested with literal numbers (tests/unit/test_audit_analysis.py).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from harness.audit.report import Phase, Role, Sample
from harness.stats.robust import (
    LENGTH_MATCH,
    NOISE_LIMIT_REQUEST,
    hodges_lehmann_ratio,
    mad_sigma,
    median,
)


def per_token(samples: Sequence[Sample], role: Role, phases: Sequence[Phase]) -> list[float]:
    return [
        t
        for s in samples
        if s.role == role and s.phase in phases and (t := s.ms_per_token) is not None
    ]


# a control whose answer is longer or shorter than LENGTH_MATCH (harness/stats/robust.py) of
# the repeated prompt's spreads its fixed cost (TTFT) over another number of tokens: not
# compared


def _close(a: Sample, b: Sample) -> bool:
    n = a.output_tokens or 0
    return abs((b.output_tokens or 0) - n) <= LENGTH_MATCH * n


# A loaded machine's stall (another process on the core) slows a request, and often the next
# few, by a heavy-tailed factor; it never speeds one up. A few stalls landing on the controls
# of both looks more than on the filler could fake a split, so the pairs leave out each
# role's slow outliers: a request whose log time per token lies more than SLOW_SIGMAS σ (the
# look's robust σ: the MAD of the filler's and its matched controls' log deviations from
# their own medians) above its role's median, and never one within SLOW_FLOOR (~10 %) of it.
# One-sided, so a cheat cannot hide behind it: filler detection makes every filler request
# faster, never a few slower, and what it drops (slow requests) only ever moves a ratio
# toward 1 by the stalls it removes. bench/audit.py's loaded rows chose 3 σ and the floor.
SLOW_SIGMAS = 3.0
SLOW_FLOOR = 0.1


def _fast(xs: list[tuple[Sample, float]], sigma: float) -> list[Sample]:
    mid = median([x for _, x in xs])
    if mid is None:
        return []
    return [s for s, x in xs if x - mid <= max(SLOW_SIGMAS * sigma, SLOW_FLOOR)]


def compared(samples: Sequence[Sample], phases: Sequence[Phase]) -> tuple[
    list[Sample], list[Sample], float | None
]:  # fmt: skip
    """The repeated prompt's and its near controls' answered requests in ``phases`` that
    the split compares (a control only where its answer is as long as some repeated one's:
    :func:`_close`), slow outliers left out (``SLOW_SIGMAS``), and the look's robust σ of
    log time per token (None under 2 of either role)."""
    rep = [s for s in samples if s.role == "repeated" and s.phase in phases and s.ok]
    near = [s for s in samples if s.role == "near_filler" and s.phase in phases and s.ok]
    near = [b for b in near if any(_close(a, b) for a in rep)]
    logs = [
        [(s, math.log(t)) for s in group if (t := s.ms_per_token) is not None and t > 0]
        for group in (rep, near)
    ]
    if min(len(g) for g in logs) < 2:
        return rep, near, None
    deviations = [
        x - mid for g in logs if (mid := median([x for _, x in g])) is not None for _, x in g
    ]
    sigma = mad_sigma(deviations)
    if sigma is None:
        return rep, near, None
    return _fast(logs[0], sigma), _fast(logs[1], sigma), sigma


def ratio(
    samples: Sequence[Sample],
    phases: Sequence[Phase],
    *,
    any_length: bool = False,
    min_controls: int = 1,
) -> float | None:
    """The repeated prompt's ms per output token over the near control's, by the median of
    every pair's ratio (``hodges_lehmann_ratio``, harness/stats/robust.py), a pair only where
    the control's answer is about as long as the repeated prompt's (a fixed cost spread over
    another number of tokens is not compared; at temperature 0 the repeated answers are one
    length, at 1.0 each pair is matched on its own), each role's slow outliers (stalls) left
    out (:func:`compared`); ``any_length``: every pair, none left out. None when fewer than
    ``min_controls`` controls are in a pair before the outliers are left out (the profile's:
    a few controls would carry the whole median)."""
    rep = [s for s in samples if s.role == "repeated" and s.phase in phases and s.ok]
    near = [s for s in samples if s.role == "near_filler" and s.phase in phases and s.ok]
    if any_length:
        controls = [t for s in near if (t := s.ms_per_token) is not None]
        if len(controls) < min_controls:
            return None
        return hodges_lehmann_ratio([t for s in rep if (t := s.ms_per_token) is not None], controls)
    paired = {i for a in rep for i, b in enumerate(near) if b.e2e_ms and _close(a, b)}
    if len(paired) < max(1, min_controls):
        return None
    rep, near, _ = compared(samples, phases)
    pairs = [
        a.e2e_ms / max(1, a.output_tokens or 0) / (b.e2e_ms / max(1, b.output_tokens or 0))
        for a in rep
        for b in near
        if a.e2e_ms is not None and b.e2e_ms and _close(a, b)
    ]
    return statistics.median(pairs) if pairs else None


# a look whose requests vary more than this (robust σ of their time per token) cannot tell
# a 10 % split from noise (a split deeper than twice that spread it can): a loaded 2-core
# CPU machine shares its cores, a GPU server does not vary so (bench/audit.py: ~11 % at its
# 10 % jitter, ~6 % at 3 %)
NOISE_LIMIT = NOISE_LIMIT_REQUEST
# and whatever the spread, a look's split must lie more than SPLIT_ERRORS standard errors
# below 1 (σ √(1/m + 1/n) for m filler requests and n controls: a difference of two means,
# here of their log times per token): at 10 % jitter one look in ten splits by chance, and
# two looks split below 0.945 in ~1 % of honest audits, too often for the spread guard
# alone. It was 2.2 (bench/audit.py: honest 10 % jitter 0.18 % false FAIL → 0.11 %); since
# a marginal double split asks a third look (THIRD_LOOK_ERRORS below), which stops those
# false alarms, 1.75 keeps a floor under every look and misses fewer cheats
SPLIT_ERRORS = 1.75


def noise(samples: Sequence[Sample], phases: Sequence[Phase]) -> float | None:
    """The spread of the repeated prompt's and its matched controls' time per output token
    in ``phases``: the robust σ (1.4826 × the median absolute deviation) of their log times
    per token about each role's median, pooled (more requests: a steadier σ than the
    filler's alone, and one a cheat cannot raise by jittering its filler alone), slow
    outliers (stalls) left out as the split leaves them (:func:`compared`)."""
    rep, near, _ = compared(samples, phases)
    logs = [
        [math.log(t) for s in group if (t := s.ms_per_token) is not None and t > 0]
        for group in (rep, near)
    ]
    if len(logs[0]) < 2:
        return None
    return mad_sigma([x - mid for g in logs if (mid := median(g)) is not None for x in g])


def split_error(samples: Sequence[Sample], phases: Sequence[Phase]) -> float | None:
    """The standard error of a look's log split: :func:`noise` × √(1/m + 1/n) for the m
    filler requests and n controls it compares (None: not measured)."""
    rep, near, _ = compared(samples, phases)
    x = noise(samples, phases)
    if x is None or not rep or not near:
        return None
    return x * math.sqrt(1 / len(rep) + 1 / len(near))
