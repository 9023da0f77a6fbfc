"""Which fault, if any, a request gets: one seeded draw per request in arrival order.

Rate faults are exclusive and tried in a fixed order (error, hang, drop,
malformed JSON, malformed SSE) on one uniform draw, so the shares add up:
``error_rate=0.1, drop_rate=0.1`` faults 20 % of requests. Behaviour faults
(think leak, usage skew, …) are not drawn: they apply to every request.
"""

from __future__ import annotations

import random
from enum import StrEnum

from harness.simulate.config import SimConfig


class Fault(StrEnum):
    ERROR = "error"  # answered with --error-status
    HANG = "hang"  # never answered
    DROP = "drop"  # connection closed mid-stream (or before a non-streamed body)
    MALFORMED_JSON = "malformed_json"  # 200 with a truncated JSON body / event
    MALFORMED_SSE = "malformed_sse"  # broken event framing, no [DONE]
    OVERLOAD = "overload"  # --fail-under-concurrency exceeded


class FaultPlan:
    def __init__(self, cfg: SimConfig) -> None:
        self._rng = random.Random(cfg.seed)
        self._table = [
            (Fault.ERROR, cfg.error_rate),
            (Fault.HANG, cfg.hang_rate),
            (Fault.DROP, cfg.drop_rate),
            (Fault.MALFORMED_JSON, cfg.malformed_json_rate),
            (Fault.MALFORMED_SSE, cfg.malformed_sse_rate),
        ]
        self._any = any(rate > 0 for _, rate in self._table)

    def draw(self) -> Fault | None:
        if not self._any:
            return None
        u = self._rng.random()
        edge = 0.0
        for fault, rate in self._table:
            edge += rate
            if u < edge:
                return fault
        return None
