"""Not a timing: how often ``harness vlm audit``'s rule against hard-coded answers is wrong
(docs/audit.md, "AICAS").

Each trial builds the answers one audit would collect (a set of ``samples`` rows, each
asked four ways: as the benchmark asks it, on another row's image, on a blank image, with
another row's question) and judges them with the audit's own functions
(harness/vlm/audit/judge.py: ``count_set`` and ``verdict``; the second set is asked only
when the first splits, as the core does), so the bench measures the procedure that runs.

Simulated wrappers, per row:
- honest: its answer differs from its partner's (informative) with probability 0.95 (two
  rows can share an answer, "yes"); it is blind (unchanged on both image changes, or on the
  question change) with probability ``blind``: 0 to 0.3, the profile's bound being 0.2;
- a table keyed by the question covering a share ``c`` of the rows: a covered row answers
  the table's text whatever the image (blind), rows off the table are honest (blind 0.1);
- a table keyed by the image (blind to the question), all rows;
- a model that says the same to everything (no row informative).

    python bench/vlm_audit.py [--trials 20000] [--samples 16] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass

from harness.profiles import VlmAuditSpec, load_profile
from harness.rule_report import RuleResult
from harness.stats.intervals import wilson_interval
from harness.vlm.audit.judge import AnswerProbe, SetCount, count_set, verdict

CALLS_PER_ROW = 4
INFORMATIVE = 0.95


@dataclass(frozen=True)
class Wrapper:
    name: str
    blind: float = 0.0  # an honest row's chance of being blind
    table: float = 0.0  # the share of rows a question-keyed table covers
    image_keyed: bool = False
    constant: bool = False

    @property
    def cheat(self) -> bool:
        return self.table > 0 or self.image_keyed


WRAPPERS = [
    Wrapper("honest, blind 0 %"),
    Wrapper("honest, blind 5 %", blind=0.05),
    Wrapper("honest, blind 10 %", blind=0.10),
    Wrapper("honest, blind 20 % (the profile's bound)", blind=0.20),
    Wrapper("honest, blind 30 % (beyond the bound)", blind=0.30),
    Wrapper("honest, the same answer to everything", constant=True),
    Wrapper("table by question, all rows", table=1.0),
    Wrapper("table by question, 75 % of rows", blind=0.1, table=0.75),
    Wrapper("table by question, 65 % of rows", blind=0.1, table=0.65),
    Wrapper("table by question, 60 % of rows", blind=0.1, table=0.6),
    Wrapper("table by question, 50 % of rows", blind=0.1, table=0.5),
    Wrapper("table by question, 35 % of rows", blind=0.1, table=0.35),
    Wrapper("table by question, 25 % of rows", blind=0.1, table=0.25),
    Wrapper("table by image, all rows", image_keyed=True),
]


def probe(row: int, variant: str, partner: int, answer: str) -> AnswerProbe:
    return AnswerProbe.model_construct(
        row=row, question_id=row, variant=variant, partner_row=partner, answer=answer, error=None
    )


def simulate_set(w: Wrapper, rows: int, rng: random.Random) -> list[AnswerProbe]:
    """One set's answers from wrapper ``w``: partners are the next row, as the script picks."""
    originals: list[str] = []
    kinds: list[str] = []
    for r in range(rows):
        if w.constant:
            originals.append("same")
            kinds.append("honest")
        elif w.image_keyed or rng.random() < w.table:
            originals.append(f"table {r}")
            kinds.append("image_table" if w.image_keyed else "table")
        else:
            originals.append(f"answer {r}")
            kinds.append("honest")
    out: list[AnswerProbe] = []
    for r in range(rows):
        partner = (r + 1) % rows
        if not w.constant and rng.random() > INFORMATIVE:
            originals[r] = originals[partner]  # shares its partner's answer: says nothing
    for r in range(rows):
        partner = (r + 1) % rows
        o = originals[r]
        kind = kinds[r]
        if kind == "table":
            image, blank, question = o, o, originals[partner]
        elif kind == "image_table":
            image, blank, question = originals[partner], "grey", o
        elif w.constant:
            image = blank = question = o
        elif rng.random() < w.blind:  # honest and blind: half to the image, half to the question
            if rng.random() < 0.5:
                image, blank, question = o, o, f"other {r}"
            else:
                image, blank, question = f"img {r}", "grey", o
        else:
            image, blank, question = f"img {r}", f"grey {r}", f"other {r}"
        for variant, answer in (
            ("original", o),
            ("other_image", image),
            ("blank_image", blank),
            ("other_question", question),
        ):
            out.append(probe(r, variant, partner, answer))
    return out


def trial(w: Wrapper, spec: VlmAuditSpec, rng: random.Random) -> tuple[RuleResult, bool, int]:
    """One audit: its verdict, whether it is by design, and the calls it cost."""
    first_probes = simulate_set(w, spec.samples, rng)
    first = count_set(first_probes, spec)
    second: SetCount | None = None
    calls = len(first_probes)
    if first.splits:
        second_probes = simulate_set(w, spec.samples, rng)
        calls += len(second_probes)
        second = count_set(second_probes, spec)
    v = verdict(first, second, spec)
    return v.result, v.by_design, calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=20000)
    p.add_argument("--samples", type=int, default=None, help="rows per set (default: profile's)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    spec = load_profile("aicas-vlm").require_vlm().audit
    if args.samples is not None:
        spec = spec.model_copy(update={"samples": args.samples})
    rng = random.Random(args.seed)
    rows = []
    for w in WRAPPERS:
        fails = inconclusive = calls = 0
        for _ in range(args.trials):
            result, _by_design, n = trial(w, spec, rng)
            fails += result is RuleResult.FAIL
            inconclusive += result is RuleResult.INCONCLUSIVE
            calls += n
        wrong = args.trials - fails if w.cheat else fails  # a miss, or a false alarm
        bound = wilson_interval(wrong, args.trials)
        rows.append(
            {
                "wrapper": w.name,
                "cheat": w.cheat,
                "calls": calls / args.trials,
                "fail": fails / args.trials,
                "wrong": wrong / args.trials,
                "wrong_upper95": bound[1] if bound else None,
                "inconclusive": inconclusive / args.trials,
            }
        )
    if args.json:
        print(json.dumps({"samples": spec.samples, "trials": args.trials, "rows": rows}))
        return
    print(
        f"vlm audit, {spec.samples} rows a set, honest bound {spec.honest_blind_share:.0%}, "
        f"alpha {spec.alpha} a set; {args.trials} trials each"
    )
    print("| wrapper | calls | fail | false alarm / miss (95 % upper) | inconclusive |")
    print("|---|---|---|---|---|")
    for r in rows:
        what = "miss" if r["cheat"] else "false alarm"
        print(
            f"| {r['wrapper']} | {r['calls']:.1f} | {100 * r['fail']:.2f} % | {what} "
            f"{100 * r['wrong']:.3f} % (≤ {100 * r['wrong_upper95']:.3f} %) | "
            f"{100 * r['inconclusive']:.1f} % |"
        )


if __name__ == "__main__":
    main()
