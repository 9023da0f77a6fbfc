"""What the audit copies of the grader: one :class:`Workload` per kind of timed request.

The profile's ``[audit] workload`` says whose requests (docs/audit.md, "Per profile"):

- ``latency`` (Efficient Qwen): one workload per audited bucket, the grader's filler as a
  prompt body on its latency route, through its urllib client (a new connection each);
- ``throughput`` (GPU MODE Paris): one workload, ``sweep``, the grader's random-token
  prompt in its chat body on its chat route, through its aiohttp session (``json=``).

A record only: the prompts are built in harness/audit/timed/controls.py and sweep.py,
sent by harness/audit/timed/send.py.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

# who sends the grader's timed requests, and in which body
Client = Literal["urllib", "aiohttp"]
SWEEP = "sweep"  # the name of the throughput workload (a latency one is its bucket's name)


@dataclass(frozen=True)
class Workload:
    """One kind of timed request: its name (a bucket's, or ``sweep``), its prompt length,
    its ``max_tokens``, and the filler's repeats (0: the sweep's random-token prompt)."""

    name: str
    prompt_tokens: int
    max_tokens: int
    filler_repeats: int = 0

    @property
    def random_tokens(self) -> bool:
        return self.filler_repeats == 0


@dataclass(frozen=True)
class Nouns:
    """What the verdicts call the repeated prompt, its near control, a prompt unlike it."""

    prompt: str
    near: str
    other: str


FILLER = Nouns("filler", "near-filler", "a one-word-different prompt")
SWEEP_NOUNS = Nouns("prompt", "near", "a one-token-different prompt")


def nouns(workloads: Collection[str]) -> Nouns:
    """The sweep's words where the sweep is audited, else the latency filler's."""
    return SWEEP_NOUNS if SWEEP in workloads else FILLER
