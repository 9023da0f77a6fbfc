"""Not a timing: how often ``complete_outputs`` is wrong (docs/audit.md, "Error rates").

Each trial builds the checks one audit of the short bucket (``max_tokens`` 128) collects,
token counts only, and judges them with the rule's own functions
(harness/audit/continuations/rule.py: ``finished`` decides whether the probes are sent,
``probe_starts`` where they start, ``complete_outputs`` the verdict).

The model: its natural answer to the grader's prompt is L tokens, L uniform in 48–120 (and
its EOS, which vLLM counts). Continued from inside its answer it writes the rest of it
(prefix consistency at temperature 0). Its end of sequence is a near tie with probability
``q``: wherever it reaches the end (after the answer, or the rest of it from inside) it
runs on with probability q, along one run-on text whose near ties (sentence ends) lie
every 6–14 tokens, and at each it stops with probability 1 − q (each request its own
draws: prefill and decode round otherwise). Per-request numerics: every measured end
moves by up to ``seam`` tokens either way (the join re-tokenised, special tokens the text
skips), independently. Failures: a request fails with probability ``errors``; a check with
a failed request is inconclusive (the rule judges answered requests).

Cheats: a server that stops every answer at N tokens (``--stop-early-at N``: each
continuation too, N tokens after its start), and one that stops each at a share p of what
the model would still write (it knows the natural length: the worst case), saving 1 − p.

    python bench/audit_complete.py [--trials 20000] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from functools import partial

from audit_sim import rule_row  # siblings: bench/ is on the path

from harness.audit.continuations.record import Continuation
from harness.audit.continuations.rule import complete_outputs, finished, probe_starts
from harness.rule_report import RuleResult

MAX_TOKENS = 128


@dataclass(frozen=True)
class CutServer:
    name: str
    q: float = 0.0  # near-tie EOS: the chance the model runs on where it ends
    seam: int = 1  # per-request numerics: an end moves by up to this many tokens
    errors: float = 0.0
    fixed: int | None = None  # stops every answer at N tokens
    share: float | None = None  # stops each at this share of what the model would write
    honest: bool = True


class Model:
    """One audit's model: the places its answer may end (its natural end, then the run-on's
    near ties), and the server in front of it."""

    def __init__(self, rng: random.Random, s: CutServer) -> None:
        self.rng, self.s = rng, s
        self.ends = [rng.randint(48, 120)]
        while self.ends[-1] < 4 * MAX_TOKENS:
            self.ends.append(self.ends[-1] + rng.randint(6, 14))

    def end_from(self, start: int) -> int:
        """Where the model ends, writing from ``start`` (its answer's first tokens): at the
        first of its ends it reaches where the near tie says stop (1 − q each)."""
        for end in self.ends:
            if end >= start and self.rng.random() >= self.s.q:
                return end
        return self.ends[-1]

    def served(self, start: int, limit: int) -> tuple[int, str]:
        """(tokens sent after ``start``, finish), as the server sends them."""
        n = self.end_from(start) - start
        if self.s.fixed is not None:
            n = min(n, self.s.fixed)
        if self.s.share is not None:
            n = round(self.s.share * n)
        return (limit, "length") if n >= limit else (n, "stop")

    def seen(self, n: int) -> int:
        """A count as measured: the join re-tokenised, special tokens the text skips."""
        return max(0, n + (self.rng.randint(-self.s.seam, self.s.seam) if self.s.seam else 0))


def check_once(rng: random.Random, s: CutServer) -> tuple[RuleResult, int]:
    m = Model(rng, s)
    sent = 0

    def fails() -> bool:
        nonlocal sent
        sent += 1
        return bool(s.errors) and rng.random() < s.errors

    if fails():
        c = Continuation(bucket="short", max_tokens=MAX_TOKENS, error="HTTP 500", requests=1)
        return complete_outputs([c]).result, sent
    answer, finish = m.served(0, MAX_TOKENS)  # the model's position: what was sent back
    c = Continuation(bucket="short", max_tokens=MAX_TOKENS, answer_tokens=answer + 1,
                     answer_finish=finish, requests=2)  # fmt: skip
    if not c.ended_early:
        return complete_outputs([c]).result, sent
    c.start = m.seen(answer)
    if fails():
        c.error = "HTTP 500"
        return complete_outputs([c]).result, sent
    more, c.continued_finish = m.served(answer, MAX_TOKENS)
    c.continued_tokens, c.end = more + 1, c.start + m.seen(more)
    checks = [c]
    if finished(c) is False:
        for i, k in enumerate(probe_starts(c), start=2):
            p = c.model_copy(update={"attempt": i, "start": k, "requests": 1})
            if fails():
                p.error, p.end = "HTTP 500", None
            else:  # the answer's first k tokens as measured: about k of the model's
                n, p.continued_finish = m.served(k, MAX_TOKENS)
                p.continued_tokens, p.end = n + 1, k + m.seen(n)
            checks.append(p)
    return complete_outputs(checks).result, sent


SERVERS = (
    CutServer("honest, EOS never a near tie", q=0.0),
    *(CutServer(f"honest, near-tie EOS q {q:.0%}", q=q) for q in (0.1, 0.3, 0.5)),
    CutServer("honest, near-tie q 30 %, numerics ±2 tokens", q=0.3, seam=2),
    *(
        CutServer(f"honest, near-tie q 30 %, {e:.0%} of requests fail", q=0.3, errors=e)
        for e in (0.01, 0.05, 0.1)
    ),
    *(CutServer(f"stops every answer at {n}", fixed=n, honest=False) for n in (24, 32, 40)),
    CutServer("stops at 32, near-tie q 30 %", fixed=32, q=0.3, honest=False),
    CutServer("stops at 32, 5 % of requests fail", fixed=32, errors=0.05, honest=False),
    *(
        CutServer(f"stops at {p:.0%} of the natural length", share=p, honest=False)
        for p in (0.8, 0.7, 0.5)
    ),
    CutServer("stops at 80 %, near-tie q 30 %", share=0.8, q=0.3, honest=False),
)


def complete_rows(trials: int, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    print("complete_outputs:", file=sys.stderr)
    for s in SERVERS:
        rng = random.Random(f"{seed}/complete/{s.name}")
        once = partial(check_once, rng, s)
        rows.append(rule_row("complete_outputs", s.name, s.honest, trials, once))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = complete_rows(args.trials, args.seed)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
