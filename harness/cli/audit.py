"""``harness audit``: the contest's rules, one verdict each with its evidence (docs/audit.md).

Special beside the kinds' one front end (harness/cli/kind_command.py): its help, and the
per-request samples and quality items left out of ``--json`` (they are in audit.json).
"""

from __future__ import annotations

from harness.cli.front import Front

FRONT = Front(
    summary="the contest's rules: cached answers, benchmark detection, physically possible",
    help="check the contest's rules against a server, with the grader's own client",
    description="Sends the grader's repeated latency prompt interleaved with controls of the "
    "same token length (one word swapped; a unique head) and the quality graders' items "
    "interleaved with light paraphrases through the grader's client, reads the server's "
    "counters, and judges each rule of the profile's [audit]: pass, fail or "
    "inconclusive, with its evidence. Exit 0: no rule fails; 1: a rule fails; 3: the server "
    "did not answer.",
    json_exclude=frozenset({"samples", "paraphrases"}),
)
