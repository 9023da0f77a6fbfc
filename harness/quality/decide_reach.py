"""Whether ``--decide`` can settle a benchmark before its last document: pure.

On a small set every answer may be needed: 5 GPQA questions fit in one round of 8
(the concurrency), while 40 right/wrong questions against 0.63 settle a FAIL after
the first 8 when all 8 are wrong (and only then). Where no answers could settle the decision before
the last document, rounds only add their cost (an lm-eval evaluation each, and the
wait for each round's slowest answer): ``decide.py`` then asks every document in one
round, the plain run's single evaluation.
"""

from __future__ import annotations

import numpy as np

from harness.quality.decide_stats import Decider, Design, look_points, schedule


def earliest_decision(design: Design, every: int) -> int | None:
    """The fewest documents after which some answers could settle the decision, looking
    after each round of ``every`` as the run does; None when only the full set decides.

    Two orders are played at once with the most one-sided answers, every document wrong
    and every document right: the certain stop and the tests settle soonest on those."""
    points = look_points(design.total, every)[:-1]  # the last look sees every document
    if not points:
        return None
    dec = Decider(design, trials=2, every=every)
    order = schedule(design)
    asked = 0
    for point in points:
        while asked < point:
            h = order[asked]
            dec.add(h, np.array([0.0, float(design.strata[h].weight)]))
            asked += 1
        if bool((dec.look().decision() != 0).any()):
            return point
    return None
