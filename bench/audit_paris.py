"""Not a timing: how often ``harness audit``'s rules are wrong under the GPU MODE Paris profile
(docs/audit.md, "Per profile: GPU MODE Paris"), with the sweep's own request: a 1024-token
random prompt (1036 with the chat template), ``max_tokens`` 1024, temperature 1.0.

Each trial builds the samples one Paris audit would collect and judges them with the audit's
own functions (harness/audit/timed/detection.py: ``needs_confirmation`` decides the second look,
``needs_third_look`` the third, ``judge`` the verdicts, with the answers' hashes where the grader samples), so the bench
measures the procedure that runs; tests/integration/test_audit_paris.py holds the live rows.

Honest servers (8× H200 at c=1, about the reference vLLM's 1.35 s a request): TTFT 30 ms,
prefill 0.02 ms a token (a prefix cache serves the repeated prompt and its near control,
never the fresh one), TPOT 4.5 ms; answers sampled at temperature 1.0, so every answer has
its own text and its own length (lognormal, median 290 tokens, σ 0.5, cut at 1024 with
``length``: the reference's ~290 completion tokens a request); per-request lognormal jitter
(σ 1 / 3 / 5 / 10 %) and speculative decoding (σ 5 % on TPOT); the request counter lags by
0–1. One honest server ignores the temperature (decodes greedily): one text and one length
per prompt, the decode paid. Cheats: an exact-response cache (1 ms + 0.002 ms a token once
warm: the JSON of the first answer; the engine's counter not moved, and one that exports no
counter), and a server that serves the repeated prompt's decode F times faster on its second
sight (benchmark detection), F moving the median by 5, 10 or 20 %.

    python bench/audit_paris.py [--trials 20000] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass

from audit_sim import send_rounds, upper95  # a sibling: bench/ is on the path

from harness.audit.report import Phase, Role, Sample
from harness.audit.rules import judge
from harness.profiles import load_profile
from harness.rule_report import RuleResult

PROFILE = load_profile("gpumode-paris")
SPEC = PROFILE.audit
TEMPERATURE = PROFILE.require_throughput().temperature
PROMPT, MAX_TOKENS = 1036, 1024
TTFT_MS, PREFILL_MS, TPOT_MS = 30.0, 0.02, 4.5
LENGTH_MEDIAN, LENGTH_SIGMA = 290.0, 0.5
# the sweep's whole-run figures (docs/throughput.md, the reference vLLM 0.19 on 8× H200)
SWEEP_REQUESTS, SWEEP_WALL_S = 7 * (64 + 2), 86.1 + 47.5 + 27.3 + 17.9 + 13.6 + 7.5 + 6.5


def speedup_for(move: float) -> float:
    """The decode speed-up F that moves the repeated prompt's median e2e by ``move``."""
    decode = LENGTH_MEDIAN * TPOT_MS
    return decode / ((1 - move) * (TTFT_MS + decode) - TTFT_MS)


@dataclass(frozen=True)
class Server:
    name: str
    jitter: float = 0.03
    spec_sigma: float = 0.05
    greedy: bool = False  # ignores the temperature: one answer per prompt
    second_sight: float = 1.0  # the repeated prompt's decode this much faster once seen
    cache: bool = False
    counter: bool = True
    honest: bool = True


def length(rng: random.Random) -> int:
    return max(1, min(MAX_TOKENS, round(LENGTH_MEDIAN * math.exp(rng.gauss(0, LENGTH_SIGMA)))))


def audit_once(rng: random.Random, s: Server) -> tuple[dict[str, RuleResult], int]:
    samples: list[Sample] = []
    reached, seen, calls = 0, False, 0
    greedy_len = length(rng)  # the greedy server's one answer to the repeated prompt

    def send(role: Role, phase: Phase, index: int) -> None:
        nonlocal reached, seen, calls
        calls += 1
        repeated = role == "repeated"
        if s.cache and repeated and seen:
            n = greedy_len
            e2e = (1.0 + 0.002 * n) * math.exp(rng.gauss(0, 0.1))
            digest = "first"
        else:
            n = greedy_len if (s.greedy or s.cache) and repeated else length(rng)
            n = 1 if role == "one_token" else n
            tpot = TPOT_MS * math.exp(rng.gauss(0, s.spec_sigma))
            if repeated and seen:
                tpot /= s.second_sight
            prefill = PREFILL_MS * (PROMPT if role == "unique_head" else 16)
            e2e = (TTFT_MS + prefill + n * tpot) * math.exp(rng.gauss(0, s.jitter))
            digest = "first" if (s.greedy or s.cache) and repeated else f"{role}{calls}"
            reached += 1
        seen = seen or repeated
        samples.append(Sample(bucket="sweep", role=role, phase=phase, round=index,
                              prompt_tokens=PROMPT, e2e_ms=e2e, output_tokens=n,
                              answer_digest=digest))  # fmt: skip

    send_rounds(send, samples, SPEC)
    counted = float(reached - rng.randint(0, 1))
    counters = {"vllm:request_success_total": counted} if s.counter else {}
    verdicts = judge(SPEC, {"sweep": samples}, counters, len(samples), None, TEMPERATURE)
    return {v.rule: v.result for v in verdicts}, len(samples)


SERVERS = (
    *(Server(f"honest sampler, jitter {j:.0%}", jitter=j) for j in (0.01, 0.03, 0.05, 0.10)),
    Server("honest sampler, jitter 3 %, no counter", counter=False),
    Server("honest, ignores temperature (greedy)", greedy=True),
    Server("honest, greedy, no counter", greedy=True, counter=False),
    Server("response cache", cache=True, honest=False),
    Server("response cache, no counter", cache=True, counter=False, honest=False),
    *(
        Server(f"second sight, median −{m:.0%}", second_sight=speedup_for(m), honest=False)
        for m in (0.05, 0.10, 0.20)
    ),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for s in SERVERS:
        rng = random.Random(f"{args.seed}/{s.name}")
        fails = dict.fromkeys(SPEC.rules, 0)
        unsure = dict.fromkeys(SPEC.rules, 0)
        requests = 0
        for _ in range(args.trials):
            got, n = audit_once(rng, s)
            requests += n
            for rule, result in got.items():
                fails[rule] += result is RuleResult.FAIL
                unsure[rule] += result is RuleResult.INCONCLUSIVE
        t = args.trials
        row = {"server": s.name, "honest": s.honest, "trials": t, "mean_requests": requests / t,
               **{f"fail_{r}": fails[r] / t for r in SPEC.rules},
               **{f"fail95_{r}": upper95(fails[r], t) for r in SPEC.rules},
               **{f"inconclusive_{r}": unsure[r] / t for r in SPEC.rules}}  # fmt: skip
        rows.append(row)
        cells = "  ".join(
            f"{r}: fail {fails[r] / t:7.3%} (≤{upper95(fails[r], t):.3%}) inc {unsure[r] / t:6.2%}"
            for r in SPEC.rules
        )
        print(f"{s.name:40} req {requests / t:5.1f}  {cells}", file=sys.stderr)
    per = TTFT_MS + PREFILL_MS * 16 + LENGTH_MEDIAN * TPOT_MS
    base = SPEC.warmup + 3 * SPEC.rounds
    print(
        f"cost: {base} requests (~{base * per / 1000:.0f} s at {per / 1000:.2f} s a request), "
        f"{2 * base - SPEC.warmup} with the second set; the sweep: {SWEEP_REQUESTS} requests, "
        f"{SWEEP_WALL_S:.0f} s for the reference vLLM",
        file=sys.stderr,
    )
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
