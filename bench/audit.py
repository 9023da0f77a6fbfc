"""Not a timing: how often ``harness audit``'s rules are wrong (docs/audit.md, "Error rates").

Each trial builds the samples one audit of the short bucket would collect from a simulated
A10G-like server and judges them with the audit's own functions (harness/audit/timed/detection.py:
``needs_confirmation`` decides the second look, ``needs_third_look`` the third, ``judge``
the verdicts), so the bench measures the procedure that runs. A live server proves nothing more about these statistics
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
both looks while the filler's and its controls' own time per token varied by more than
10 % (a split shallower than twice that), or a split within 1.75 standard errors of none.
When both looks split but one lies under 3 standard errors deep, the audit sends a third
set of rounds (``needs_third_look``, through ``send_rounds``), and the rule fails only when
it splits too.

Failures: a share of the requests fails (HTTP 500); a failed request is dropped from the
judged set (the rules judge answered requests), and the counter is compared with the
answered ones. Zero decode: a server that answers at once after a 40 ms TTFT (``--itl-ms
0``): the repeated prompt's three one-token requests show its decode costs nothing.

A loaded machine (other processes on the cores): a share of the requests (2 / 5 / 10 %)
starts a stall that slows it and the next 0–3 by one factor from a Pareto law of index 1.5
(heavy-tailed: median ×1.6, one stall in ten ×4.6 or more); ``--only loaded`` runs those
rows alone (``--only TEXT``: the timed rows whose server names hold TEXT, no other table).

Only the timed rules are judged in these rows; ``complete_outputs``' two requests (the
answer and its continuation, on a server whose model ends at once) are counted in the
requests column, and the rule has its own rows (bench/audit_complete.py, whose docstring
describes its servers: near-tie ends of sequence, per-request numerics, failures, cuts at
a fixed count and in proportion).
Rules ``one_stack`` and ``stream_consistency`` have their own rows: the probe phase
simulated and judged with their own functions (harness/audit/probes/stack.py, stream.py; the
servers are described above ``STACK_SERVERS`` and ``STREAM_SERVERS``); so has
``benchmark_detection``'s quality half (the graders' items against paraphrases:
bench/audit_paraphrase.py, whose docstring describes its servers).

    python bench/audit.py [--trials 20000] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from audit_complete import complete_rows  # siblings: bench/ is on the path
from audit_paraphrase import paraphrase_rows
from audit_sim import rule_row, send_rounds, upper95

from harness.audit.probes.record import Probe, Shape
from harness.audit.probes.stack import needs_confirmation as stack_needs_confirmation
from harness.audit.probes.stack import one_stack
from harness.audit.probes.stream import SECOND_LOOK, needs_second_stream, stream_consistency
from harness.audit.report import Phase, Role, Sample
from harness.audit.rules import judge
from harness.profiles import load_profile
from harness.rule_report import RuleResult

PROFILE_SPEC = load_profile("efficient-qwen").audit
SPEC = PROFILE_SPEC
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
    errors: float = 0.0  # share of requests that fail (HTTP 500): dropped, never judged
    ttft_ms: float = TTFT_MS
    tpot_ms: float = TPOT_MS  # 0: a server that does not decode (answers at once after TTFT)
    stalls: float = 0.0  # a loaded machine: the share of requests that start a stall


class Load:
    """A loaded machine (other processes on the cores): a request starts a stall with
    probability ``s.stalls``; the stall slows it and the next 0–3 requests (correlated:
    the other process keeps the core a while) by one factor drawn from a Pareto law of
    index 1.5 (heavy-tailed: ≥ 1, median 1.6, one in ten ×4.6 or more)."""

    def __init__(self, rng: random.Random, s: Server) -> None:
        self.rng, self.s, self.left, self.factor = rng, s, 0, 1.0

    def next(self) -> float:
        if self.left > 0:
            self.left -= 1
            return self.factor
        if self.s.stalls and self.rng.random() < self.s.stalls:
            self.factor, self.left = self.rng.paretovariate(1.5), self.rng.randint(0, 3)
            return self.factor
        return 1.0


def one_request(rng: random.Random, s: Server, role: Role, warm: bool) -> tuple[float, int, bool]:
    """(e2e ms, output tokens, reached the engine)."""
    if s.cache and role == "repeated" and warm:
        return 0.7 * math.exp(rng.gauss(0, 0.1)), MAX_TOKENS, False
    n = 1 if role == "one_token" else MAX_TOKENS
    if role in ("near_filler", "unique_head") and rng.random() > 0.7:
        n = rng.randint(20, MAX_TOKENS)
    prefill = 0.1 * (PROMPT if role == "unique_head" else 16)
    tpot = s.tpot_ms * math.exp(rng.gauss(0, s.spec_sigma))
    if role == "repeated":
        tpot /= s.filler_speedup
    e2e = (s.ttft_ms + prefill + n * tpot) * math.exp(rng.gauss(0, s.jitter))
    return e2e, n, True


def audit_once(rng: random.Random, s: Server) -> tuple[dict[str, RuleResult], int]:
    """One audit's verdicts and the requests it sent; a failed request is sent and counted
    as sent, but neither answered nor judged (the rules judge answered requests only)."""
    samples: list[Sample] = []
    reached, warm, failed = 0, False, 0
    load = Load(rng, s)

    def send(role: Role, phase: Phase, index: int) -> None:
        nonlocal reached, warm, failed
        if s.errors and rng.random() < s.errors:
            failed += 1
            return
        e2e, n, engine = one_request(rng, s, role, warm)
        e2e *= load.next()
        warm = warm or role == "repeated"
        reached += engine
        samples.append(Sample(bucket="short", role=role, phase=phase, round=index,
                              prompt_tokens=PROMPT, e2e_ms=e2e, output_tokens=n))  # fmt: skip

    send_rounds(send, samples, SPEC)
    lag = rng.randint(0, 1)
    reached += COMPLETE_REQUESTS  # the continuation is a new prompt; the answer may be cached
    reached -= COMPLETE_REQUESTS // 2 if s.cache else 0
    counted = float(reached - lag)
    counters = {"vllm:request_success_total": counted} if s.counter else {}
    answered = len(samples) + COMPLETE_REQUESTS
    verdicts = judge(SPEC, {"short": samples}, counters, answered)
    return {v.rule: v.result for v in verdicts}, answered + failed


SERVERS = (
    *(Server(f"honest, jitter {j:.0%}", jitter=j) for j in (0.01, 0.03, 0.05, 0.10)),
    Server("honest, jitter 3 %, no counter", counter=False),
    *(Server(f"honest, jitter 3 %, {e:.0%} of requests fail", errors=e) for e in (0.01, 0.05, 0.1)),
    Server("honest, jitter 3 %, TPOT σ 15 % per request", spec_sigma=0.15),
    *(Server(f"honest, loaded machine, {p:.0%} stall", stalls=p) for p in (0.02, 0.05, 0.1)),
    Server("response cache", cache=True, honest=False),
    Server("response cache, no counter", cache=True, counter=False, honest=False),
    Server("response cache, 5 % of requests fail", cache=True, errors=0.05, honest=False),
    *(
        Server(f"filler detection, median −{m:.0%}", filler_speedup=speedup_for(m), honest=False)
        for m in (0.05, 0.10, 0.20)
    ),
    Server(
        "filler detection, median −10 %, 5 % fail",
        filler_speedup=speedup_for(0.10),
        errors=0.05,
        honest=False,
    ),
    Server("filler detection ×1.5", filler_speedup=1.5, honest=False),
    Server(
        "filler detection, median −10 %, loaded 5 % stall",
        filler_speedup=speedup_for(0.10),
        stalls=0.05,
        honest=False,
    ),
    Server("zero decode (TTFT 40 ms, no time per token)", ttft_ms=40.0, tpot_ms=0.0, honest=False),
)


# ---- one_stack: the probe phase (harness/audit/probes/stack.py) ---------------------------------
# Honest: every way of asking gets one answer of 64 tokens at TTFT 25 ms + 7 ms a token,
# per-request jitter and speculative decoding as lognormal factors; "flaky" servers answer
# a second text with probability q on any request (near-tied tokens flipping with the
# batch: nondeterminism at temperature 0). Cheats: a second model on prompt bodies or on one
# route (other text), or the same text served F times faster on prompt bodies / on one route.
WAYS: tuple[tuple[str, Shape], ...] = (
    ("/v1/chat/completions", "chat"),
    ("/invocations", "chat"),
    ("/v1/completions", "prompt"),
    ("/invocations", "prompt"),
)


@dataclass(frozen=True)
class StackServer:
    name: str
    jitter: float = 0.03
    spec_sigma: float = 0.05
    flaky: float = 0.0  # probability of the second text on any request
    other_text: Callable[[str, Shape], bool] = lambda route, shape: False
    speedup: Callable[[str, Shape], float] = lambda route, shape: 1.0
    honest: bool = True
    missing: str = ""  # a route the server does not serve (404): its probes fail


def stack_probe(rng: random.Random, s: StackServer, route: str, shape: Shape, look: int,
                **flags: bool) -> Probe:  # fmt: skip
    if route == s.missing:
        return Probe(route=route, shape=shape, look=look, error=f"HTTP 404 from {route}", **flags)
    text = " one answer"
    if s.other_text(route, shape):
        text = " another model"
    elif s.flaky and rng.random() < s.flaky:
        text = " a near tie"
    tpot = 7.0 * math.exp(rng.gauss(0, s.spec_sigma)) / s.speedup(route, shape)
    e2e = (25.0 + 64 * tpot) * math.exp(rng.gauss(0, s.jitter))
    return Probe(route=route, shape=shape, look=look, e2e_ms=e2e, text=text, output_tokens=64,
                 **flags)  # fmt: skip


def stack_once(rng: random.Random, s: StackServer) -> tuple[RuleResult, int]:
    probes = [stack_probe(rng, s, "/invocations", "prompt", 0, warmup=True)]
    for look in (0, 1):
        if look == 1 and not stack_needs_confirmation(probes, SPEC):
            break
        for again in (False, True):
            probes += [stack_probe(rng, s, r, sh, look, repeat=again) for r, sh in WAYS]
    return one_stack(probes, SPEC).result, len(probes)


def _prompt(f: float) -> Callable[[str, Shape], float]:
    return lambda route, shape: f if shape == "prompt" else 1.0


STACK_SERVERS = (
    *(StackServer(f"honest, jitter {j:.0%}", jitter=j) for j in (0.01, 0.03, 0.05, 0.10)),
    StackServer("honest, jitter 3 %, TPOT spread σ 15 %", spec_sigma=0.15),
    *(StackServer(f"honest, flaky {q:.0%} (nondeterministic)", flaky=q) for q in (0.1, 0.3)),
    StackServer("honest, /v1/chat/completions missing (404)", missing="/v1/chat/completions"),
    StackServer(
        "second model on prompt bodies", other_text=lambda r, sh: sh == "prompt", honest=False
    ),
    StackServer(
        "second model on /v1/completions",
        honest=False,
        other_text=lambda r, sh: r == "/v1/completions",
    ),
    StackServer(
        "second model on prompt bodies, flaky 10 %",
        flaky=0.1,
        honest=False,
        other_text=lambda r, sh: sh == "prompt",
    ),
    *(
        StackServer(f"same text, prompt bodies ×{f:g} faster", speedup=_prompt(f), honest=False)
        for f in (1.12, 1.25, 1.4, 1.6)
    ),
    StackServer(
        "same text, /v1/completions ×1.6 faster",
        honest=False,
        speedup=lambda r, sh: 1.6 if r == "/v1/completions" else 1.0,
    ),
    StackServer(
        "same text, prompt bodies ×1.6 faster, jitter 10 %",
        jitter=0.10,
        speedup=_prompt(1.6),
        honest=False,
    ),
)


def stack_rows(trials: int, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    print(f"one_stack: stack_speed_ratio {SPEC.stack_speed_ratio}", file=sys.stderr)
    for s in STACK_SERVERS:
        rng = random.Random(f"{seed}/stack/{s.name}")
        rows.append(rule_row("one_stack", s.name, s.honest, trials, partial(stack_once, rng, s)))
    return rows


# ---- stream_consistency: the probe phase's streams (harness/audit/probes/stream.py) -------------
# Every answer is " one answer here" (3 tokens + the EOS vLLM counts) or, on a "flaky"
# server, " a near tie" with probability q on any request, streamed or not. Honest servers
# also stream several tokens an event, or generate special tokens the text does not show
# (usage above the text: never a finding). Cheats stream another first token (on every
# stream, or on one in ten), report 2 more tokens streamed, or end twice.
ANSWER, TIE, OTHER = " one answer here", " a near tie", " another answer here"


@dataclass(frozen=True)
class StreamServer:
    name: str
    flaky: float = 0.0
    specials: int = 0  # special tokens generated, counted, absent from the text
    first_token: float = 0.0  # share of streams whose first token another model wrote
    usage_skew: int = 0  # added to a stream's usage only
    ends: int = 1
    honest: bool = True


def stream_answer(rng: random.Random, s: StreamServer, route: str, shape: Shape, look: int,
                  stream: bool, **flags: bool) -> Probe:  # fmt: skip
    text = TIE if s.flaky and rng.random() < s.flaky else ANSWER
    if stream and s.first_token and rng.random() < s.first_token:
        text = OTHER
    usage = len(text.split()) + 1 + s.specials + (s.usage_skew if stream else 0)
    p = Probe(route=route, shape=shape, look=look, stream=stream, e2e_ms=100.0, text=text,
              output_tokens=usage, text_tokens=len(text.split()), finish_reason="stop",
              **flags)  # fmt: skip
    if stream:
        p.first_text, p.finish_events = " " + text.split()[0], s.ends
        p.eos_in_text, p.text_after_finish = 0, False
    return p


def stream_once(rng: random.Random, s: StreamServer) -> tuple[RuleResult, int]:
    probes = [stream_answer(rng, s, "/invocations", "prompt", 0, False, warmup=True)]
    for again in (False, True):
        probes += [stream_answer(rng, s, r, sh, 0, False, repeat=again) for r, sh in WAYS]
    probes += [stream_answer(rng, s, r, sh, 0, True) for r, sh in (WAYS[0], WAYS[2])]
    if stack_needs_confirmation(probes, SPEC):  # one_stack's second set, as the audit sends it
        for again in (False, True):
            probes += [stream_answer(rng, s, r, sh, 1, False, repeat=again) for r, sh in WAYS]
    for p in needs_second_stream(probes):  # the second look, as the audit sends it
        probes += [stream_answer(rng, s, p.route, p.shape, 1, True) for _ in range(SECOND_LOOK)]
        probes.append(stream_answer(rng, s, p.route, p.shape, 1, False))
    return stream_consistency(probes, tolerance=4).result, len(probes)


STREAM_SERVERS = (
    StreamServer("honest"),
    StreamServer("honest, 3 special tokens not in the text", specials=3),
    *(StreamServer(f"honest, flaky {q:.0%} (nondeterministic)", flaky=q) for q in (0.1, 0.3)),
    StreamServer("another first token on every stream", first_token=1.0, honest=False),
    StreamServer("another first token on 10 % of streams", first_token=0.1, honest=False),
    StreamServer("another first token, flaky 10 %", first_token=1.0, flaky=0.1, honest=False),
    StreamServer("stream usage +2", usage_skew=2, honest=False),
    StreamServer("two ends of sequence", ends=2, honest=False),
)


def stream_rows(trials: int, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    print("stream_consistency:", file=sys.stderr)
    for s in STREAM_SERVERS:
        rng = random.Random(f"{seed}/stream/{s.name}")
        once = partial(stream_once, rng, s)
        rows.append(rule_row("stream_consistency", s.name, s.honest, trials, once))
    return rows


def other_rows(trials: int, seed: int) -> list[dict[str, object]]:
    """The rules with tables of their own (the quality half, complete_outputs, one_stack,
    stream_consistency)."""
    rows: list[dict[str, object]] = []
    if "benchmark_detection" in SPEC.rules and SPEC.paraphrase_items:
        rows += paraphrase_rows(trials, seed, SPEC)
    if "complete_outputs" in SPEC.rules:
        rows += complete_rows(trials, seed)
    if "one_stack" in SPEC.rules:
        rows += stack_rows(trials, seed)
    if "stream_consistency" in SPEC.rules:
        rows += stream_rows(trials, seed)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=None, help="default: the profile's")
    ap.add_argument("--split-ratio", type=float, default=None, help="default: the profile's")
    ap.add_argument("--stack-speed-ratio", type=float, default=None, help="default: the profile's")
    ap.add_argument("--only", default="", help="only the timed rows whose server names hold it")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    global SPEC
    SPEC = PROFILE_SPEC.model_copy(
        update={
            "rounds": args.rounds or PROFILE_SPEC.rounds,
            "split_ratio": args.split_ratio or PROFILE_SPEC.split_ratio,
            "stack_speed_ratio": args.stack_speed_ratio or PROFILE_SPEC.stack_speed_ratio,
        }
    )
    print(f"rounds {SPEC.rounds}, split_ratio {SPEC.split_ratio}", file=sys.stderr)
    # the rules judged over the rounds; the probe phase's have their own rows below
    rows = []
    for s in (s for s in SERVERS if args.only in s.name):
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
    if not args.only:  # --only: the timed rows asked for, no other table
        rows += other_rows(args.trials, args.seed)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
