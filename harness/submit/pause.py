"""A seam for kill tests: stop ``harness submit`` at a named moment, to be killed there.

``HARNESS_SUBMIT_PAUSE_AT=PHASE`` (or ``PHASE:N`` for the N-th time that phase
is reached in this run) makes the process print ``harness-submit paused at
PHASE[:N]`` on stderr and then block its whole event loop, as a frozen laptop
would, until it is killed. Unset (always, for users), each checkpoint costs
one dictionary look-up. The phases, in the order a run reaches them:

- ``registered``: ``/register`` answered;
- ``upload-url``: ``/upload-url`` answered and the upload id or key saved;
- ``put-done``: the single PUT confirmed by S3, not yet saved as uploaded;
- ``part-confirmed``: a part's ETag saved (``:N`` = the N-th part this run);
- ``parts-done``: every part confirmed, completion not yet requested;
- ``complete-requested``: "completion requested" saved, ``/complete-upload`` not yet called;
- ``completed``: ``/complete-upload`` answered, not yet saved as uploaded;
- ``submit-requested``: "submit requested" saved, ``/submit`` not yet called;
- ``submitted``: ``/submit`` answered, the submission id not yet saved.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

PAUSE_ENV = "HARNESS_SUBMIT_PAUSE_AT"
PHASES = (
    "registered",
    "upload-url",
    "put-done",
    "part-confirmed",
    "parts-done",
    "complete-requested",
    "completed",
    "submit-requested",
    "submitted",
)
_reached: Counter[str] = Counter()


def checkpoint(phase: str) -> None:
    """Block forever here when ``HARNESS_SUBMIT_PAUSE_AT`` names this moment."""
    want = os.environ.get(PAUSE_ENV)
    if not want:
        return
    _reached[phase] += 1
    name, _, nth = want.partition(":")
    if name != phase or (nth and int(nth) != _reached[phase]):
        return
    sys.stderr.write(f"harness-submit paused at {want}\n")
    sys.stderr.flush()
    while True:  # a blocking sleep on purpose: nothing else in the process may move on
        time.sleep(3600)
