"""Not a timing: how often ``harness audit``'s rules are wrong (docs/audit.md, "Error rates").

Each trial builds the samples one audit of the short bucket would collect from a simulated
A10G-like server and judges them with the audit's own functions (harness/audit/analysis.py:
``needs_confirmation`` decides the second look, ``judge`` the verdicts), so the bench
measures the procedure that runs. A live server proves nothing more about these statistics
than its timings; tests/integration/test_audit_simulator.py holds the live rows.

Honest servers: TTFT 25 ms, prefill 0.1 ms a token (a prefix cache serves the filler and
the near-filler control, never the unique head), TPOT 7 ms, 128 tokens for the filler;
per-request lognormal jitter (σ 1 / 3 / 5 / 10 %); speculative decoding as a per-request
lognormal factor on TPOT (σ 5 %); the near-filler control's answer is as long as the
filler's with probability 0.7, else 20–128 tokens; the request counter lags by 0–1.
Cheats: an exact-response cache (0.7 ms once warm, the engine's counter not moved, and one
that exports no counter), and filler detection serving the filler's decode F times faster,
F chosen to move the bucket's median by exactly 5, 10 or 20 % (and F = 1.5).

The inconclusive column is benchmark detection saying "too noisy to judge": a split in
both looks while the identical filler's own time per token varied by more than 10 %.

Only the timed rules are judged here: ``complete_outputs`` is not statistical (at
temperature 0 a continuation is a fact, not a draw: docs/audit.md); its two requests
(the answer and its continuation) are counted in the requests column.

    python bench/audit.py [--trials 20000] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass

from harness.audit.analysis import judge, needs_confirmation
from harness.audit.report import Phase, Role, RuleResult, Sample
from harness.profiles import load_profile

PROFILE_SPEC = load_profile("efficient-qwen").audit
SPEC = PROFILE_SPEC
ROLES: tuple[Role, ...] = ("repeated", "near_filler", "unique_head")
PROMPT, MAX_TOKENS = 61, 128
TTFT_MS, TPOT_MS = 25.0, 7.0
# complete_outputs' answer and continuation, sent once per bucket by the audit
COMPLETE_REQUESTS = 2 if "complete_outputs" in PROFILE_SPEC.rules else 0
TIMED_RULES = ("cached_answers", "benchmark_detection", "physically_possible")


def speedup_for(move: float) -> float:
    """The decode speed-up F that moves the honest filler's median e2e by ``move``."""
    fixed, decode = TTFT_MS + 0.1 * 16, MAX_TOKENS * TPOT_MS
    return decode / ((1 - move) * (fixed + decode) - fixed)


@dataclass(frozen=True)
class Server:
    name: str
    jitter: float = 0.03
    spec_sigma: float = 0.05
    filler_speedup: float = 1.0
    cache: bool = False
    counter: bool = True
    honest: bool = True


def one_request(rng: random.Random, s: Server, role: Role, warm: bool) -> tuple[float, int, bool]:
    """(e2e ms, output tokens, reached the engine)."""
    if s.cache and role == "repeated" and warm:
        return 0.7 * math.exp(rng.gauss(0, 0.1)), MAX_TOKENS, False
    n = MAX_TOKENS
    if role != "repeated" and rng.random() > 0.7:
        n = rng.randint(20, MAX_TOKENS)
    prefill = 0.1 * (PROMPT if role == "unique_head" else 16)
    tpot = TPOT_MS * math.exp(rng.gauss(0, s.spec_sigma))
    if role == "repeated":
        tpot /= s.filler_speedup
    e2e = (TTFT_MS + prefill + n * tpot) * math.exp(rng.gauss(0, s.jitter))
    return e2e, n, True


def audit_once(rng: random.Random, s: Server) -> tuple[dict[str, RuleResult], int]:
    samples: list[Sample] = []
    reached, warm = 0, False

    def send(role: Role, phase: Phase, index: int) -> None:
        nonlocal reached, warm
        e2e, n, engine = one_request(rng, s, role, warm)
        warm = warm or role == "repeated"
        reached += engine
        samples.append(Sample(bucket="short", role=role, phase=phase, round=index,
                              prompt_tokens=PROMPT, e2e_ms=e2e, output_tokens=n))  # fmt: skip

    for i in range(SPEC.warmup):
        send("repeated", "warmup", i)
    for phase, first in (("timed", 0), ("confirm", SPEC.rounds)):
        if phase == "confirm" and not needs_confirmation(samples, SPEC):
            break
        for i in range(first, first + SPEC.rounds):
            k = i % 3
            for role in ROLES[k:] + ROLES[:k]:
                send(role, phase, i)  # type: ignore[arg-type]
    lag = rng.randint(0, 1)
    reached += COMPLETE_REQUESTS  # the continuation is a new prompt; the answer may be cached
    reached -= COMPLETE_REQUESTS // 2 if s.cache else 0
    counted = float(reached - lag)
    counters = {"vllm:request_success_total": counted} if s.counter else {}
    sent = len(samples) + COMPLETE_REQUESTS
    verdicts = judge(SPEC, {"short": samples}, counters, sent)
    return {v.rule: v.result for v in verdicts}, sent


def upper95(k: int, n: int) -> float:
    """One-sided 95 % upper bound of a rate seen k times in n (Wilson's score bound, sound
    at k = 0 and for a handful of events, where the normal approximation is not)."""
    z, p = 1.645, k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre + spread) / (1 + z * z / n)


SERVERS = (
    *(Server(f"honest, jitter {j:.0%}", jitter=j) for j in (0.01, 0.03, 0.05, 0.10)),
    Server("honest, jitter 3 %, no counter", counter=False),
    Server("response cache", cache=True, honest=False),
    Server("response cache, no counter", cache=True, counter=False, honest=False),
    *(
        Server(f"filler detection, median −{m:.0%}", filler_speedup=speedup_for(m), honest=False)
        for m in (0.05, 0.10, 0.20)
    ),
    Server("filler detection ×1.5", filler_speedup=1.5, honest=False),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=None, help="default: the profile's")
    ap.add_argument("--split-ratio", type=float, default=None, help="default: the profile's")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    global SPEC
    SPEC = PROFILE_SPEC.model_copy(
        update={
            "rounds": args.rounds or PROFILE_SPEC.rounds,
            "split_ratio": args.split_ratio or PROFILE_SPEC.split_ratio,
        }
    )
    print(f"rounds {SPEC.rounds}, split_ratio {SPEC.split_ratio}", file=sys.stderr)
    rows = []
    for s in SERVERS:
        rng = random.Random(f"{args.seed}/{s.name}")
        rules = [r for r in SPEC.rules if r in TIMED_RULES]
        fails = dict.fromkeys(rules, 0)
        inconclusive = dict.fromkeys(rules, 0)
        requests = 0
        for _ in range(args.trials):
            got, n = audit_once(rng, s)
            requests += n
            for rule, result in got.items():
                fails[rule] += result is RuleResult.FAIL
                inconclusive[rule] += result is RuleResult.INCONCLUSIVE
        row = {
            "server": s.name,
            "honest": s.honest,
            "trials": args.trials,
            "mean_requests": requests / args.trials,
            **{f"fail_{r}": fails[r] / args.trials for r in rules},
            **{f"fail95_{r}": upper95(fails[r], args.trials) for r in rules},
            **{f"inconclusive_{r}": inconclusive[r] / args.trials for r in rules},
        }
        rows.append(row)
        cells = "  ".join(
            f"{r}: fail {fails[r] / args.trials:7.3%} (≤{upper95(fails[r], args.trials):.3%})"
            f" inc {inconclusive[r] / args.trials:6.2%}"
            for r in rules
        )
        print(f"{s.name:34} req {requests / args.trials:5.1f}  {cells}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
