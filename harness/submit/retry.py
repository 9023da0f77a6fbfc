"""What to do after a failed upload request: pure functions, chosen by error type.

- timeouts, connection errors (resets), 429 and 5xx: retry with exponential
  backoff and full jitter (the AWS architecture blog's recommendation);
- 403, or a 400 whose body says the URL expired: fetch fresh presigned URLs,
  then retry;
- any other 4xx: stop, it will not get better by itself.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass


class Action(enum.Enum):
    RETRY = "retry"
    REFRESH = "refresh"
    FAIL = "fail"


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 8  # per part, counting the first try
    base_s: float = 0.5
    cap_s: float = 30.0
    max_refreshes: int = 10  # fresh URL sets per upload
    timeout_s: float = 600.0  # per request

    def backoff_s(self, attempt: int, rng: random.Random) -> float:
        """Sleep before retry number ``attempt`` (1-based): uniform in [0, min(cap, base·2^(n-1))]."""
        return rng.uniform(0.0, min(self.cap_s, self.base_s * 2 ** (attempt - 1)))


def classify_status(status: int, body: str = "") -> Action:
    if status == 403 or (status == 400 and "expired" in body.lower()):
        return Action.REFRESH
    if status == 429 or status >= 500:
        return Action.RETRY
    return Action.FAIL


def etag_matches(etag: str | None, md5_hex: str) -> bool:
    """S3's ETag of a part (or of a single PUT) is the quoted MD5 of its bytes."""
    return etag is not None and etag.strip().strip('"').lower() == md5_hex.lower()
