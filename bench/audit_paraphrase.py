"""Not a timing: how often ``benchmark_detection``'s quality half is wrong (docs/audit.md,
"Error rates"), its rows of ``python bench/audit.py``; alone:

    python bench/audit_paraphrase.py [--trials 20000] [--seed 1] [--json]

Each trial builds the requests one audit's quality half sends (the profile's
``paraphrase_items`` items, each as the grader sends it and paraphrased, in the audit's own
order: harness/audit/paraphrases/send.py ``plan``) from a simulated A10G-like server and judges
them with the audit's own functions (harness/audit/paraphrases/rule.py:
``needs_second_look`` decides the second look, ``judge_paraphrases`` the verdict).

Honest servers: TTFT 25 ms, TPOT 7 ms, prefill 0.1 ms a token of the item's ~100 tokens
paid by whichever of the pair comes first (the other finds them in a prefix cache: it pays
its last 8); each item has its own natural answer length, 12–120 tokens, and each request
its own around it (lognormal σ 20 %: a paraphrase's answer is another text), capped at
``paraphrase_max_tokens``; per-request lognormal jitter (σ 1 / 3 / 5 / 10 %) and
speculative decoding as a per-request lognormal factor on TPOT (σ 5 %, or 15 %).
Cheats, on the grader's exact items only: canned answers (4 tokens in ~2 ms); the whole
request F times as long (another stack: F = 0.9, 0.8 faster, 1.11, 1.25 slower); answers
60 % as long at the same speed; a bigger model (TPOT × 1.5, answers 60 % as long).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit_sim import rule_row

from harness.audit.paraphrases.record import Asked, Form
from harness.audit.paraphrases.rule import judge_paraphrases, needs_second_look
from harness.audit.paraphrases.send import plan
from harness.grader_items import grader_items
from harness.profiles import AuditSpec, load_profile
from harness.rule_report import RuleResult

TTFT_MS, TPOT_MS, PREFILL_MS, ITEM_TOKENS, TAIL_TOKENS = 25.0, 7.0, 0.1, 100, 8


@dataclass(frozen=True)
class Server:
    name: str
    jitter: float = 0.03
    spec_sigma: float = 0.05
    length_sigma: float = 0.20
    canned: bool = False
    factor: float = 1.0  # the grader's items' whole request this many times as long
    length: float = 1.0  # the grader's items' natural answer length, times this
    tpot: float = 1.0  # the grader's items' time per token, times this
    honest: bool = True


def answer(rng: random.Random, s: Server, centre: float, form: Form, first: bool,
           cap: int) -> tuple[float, int]:  # fmt: skip
    """(e2e ms, output tokens) of one request."""
    cheat = form == "original" and not s.honest
    if cheat and s.canned:
        return 2.0 * math.exp(rng.gauss(0, 0.1)), 4
    natural = centre * math.exp(rng.gauss(0, s.length_sigma)) * (s.length if cheat else 1.0)
    n = max(1, min(cap, round(natural)))
    tpot = TPOT_MS * math.exp(rng.gauss(0, s.spec_sigma)) * (s.tpot if cheat else 1.0)
    prefill = PREFILL_MS * (ITEM_TOKENS if first else TAIL_TOKENS)
    e2e = (TTFT_MS + prefill + n * tpot) * math.exp(rng.gauss(0, s.jitter))
    return e2e * (s.factor if cheat else 1.0), n


def once(rng: random.Random, s: Server, spec: AuditSpec) -> tuple[RuleResult, int]:
    items = grader_items()[: spec.paraphrase_items]
    centres = {i.key: rng.uniform(12, 120) for i in items}
    asked: list[Asked] = []
    for look in (0, 1):
        if look == 1 and not needs_second_look(asked, spec):
            break
        seen: set[str] = set()
        for item, form in plan(items, look):
            e2e, n = answer(rng, s, centres[item.key], form, item.key not in seen,
                            spec.paraphrase_max_tokens)  # fmt: skip
            seen.add(item.key)
            asked.append(Asked(benchmark=item.benchmark, item=item.key, form=form, look=look,
                               e2e_ms=e2e, output_tokens=n))  # fmt: skip
    half = judge_paraphrases(asked, spec)
    assert half is not None
    return half.result, len(asked)


SERVERS = (
    *(Server(f"honest, jitter {j:.0%}", jitter=j) for j in (0.01, 0.03, 0.05, 0.10)),
    Server("honest, jitter 3 %, TPOT σ 15 %", spec_sigma=0.15),
    Server("honest, jitter 3 %, lengths σ 40 %", length_sigma=0.40),
    Server("honest, jitter 3 %, lengths σ 60 %", length_sigma=0.60),
    Server("canned answers", canned=True, honest=False),
    *(Server(f"items ×{f:g} the time", factor=f, honest=False) for f in (0.9, 0.8, 1.11, 1.25)),
    Server("items' answers 60 % as long", length=0.6, honest=False),
    Server("bigger model: TPOT ×1.5, 60 % as long", tpot=1.5, length=0.6, honest=False),
)


def paraphrase_rows(trials: int, seed: int, spec: AuditSpec) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    print(f"benchmark_detection, quality prompts: {spec.paraphrase_items} items, "
          f"{spec.paraphrase_max_tokens} tokens, bounds {spec.paraphrase_split} (time), "
          f"{spec.paraphrase_length_split} (length)", file=sys.stderr)  # fmt: skip
    for s in SERVERS:
        rng = random.Random(f"{seed}/paraphrase/{s.name}")
        trial = partial(once, rng, s, spec)
        rule = "benchmark_detection/quality_prompts"
        rows.append(rule_row(rule, s.name, s.honest, trials, trial, width=40))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--items", type=int, default=None, help="default: the profile's")
    ap.add_argument("--split", type=float, default=None, help="default: the profile's")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    spec = load_profile("efficient-qwen").audit
    spec = spec.model_copy(update={
        "paraphrase_items": args.items or spec.paraphrase_items,
        "paraphrase_split": args.split or spec.paraphrase_split,
    })  # fmt: skip
    rows = paraphrase_rows(args.trials, args.seed, spec)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
