"""Wrong decisions and documents asked of ``harness quality --decide``, by simulation: the
anytime test every benchmark used at first ("anytime") beside the method the run uses now
("new": the exact group-sequential test for a benchmark of one right/wrong stratum, the
anytime test for every other shape, where both columns are therefore one run).

Each case is a fixed finite benchmark (GPQA-like, IFEval-like ratio, MMLU-Pro-like
stratified, a large right/wrong set) whose full-set score sits at its gate's
threshold ± 0.5, 1, 3 and 10 points. Each trial asks its documents in a fresh
random order, exactly as the run does (``harness.quality.decide_stats``: the same
schedule, a look after every round of ``look_every`` documents, the same tests), and
stops at the first look that settles the decision. Both methods see the same orders.
Printed per case and method: wrong decisions with the 95 % Clopper-Pearson upper bound
of their rate, mean and 95th-percentile share of documents asked; for the new method
also decisions by certainty and the coverage of the 95 % interval at the stop.

``--boundary`` adds the hardest populations for the exact test, a right/wrong set one
answer on either side of the threshold (``M0`` and ``M0 + 1``), and prints the wrong
decisions seen beside the error the test computed for itself (its spent α).

    python bench/quality_decide.py [--trials 4000] [--seed 1] [--shapes …] [--boundary N] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from harness.quality.decide_exact import ExactTest, crossing
from harness.quality.decide_stats import (
    Decider,
    Design,
    Method,
    Stratum,
    exact_score,
    look_every,
    look_points,
    passes,
    schedule,
    uses_exact,
    worst_fail,
)

CONCURRENCY = 8
OFFSETS = (-0.10, -0.03, -0.01, -0.005, 0.005, 0.01, 0.03, 0.10)
# MMLU-Pro's test split per subject (12,032 questions), alphabetical as lm-eval lists them
MMLU_PRO_SUBJECTS = (717, 789, 1132, 410, 844, 969, 818, 381, 1101, 1351, 924, 499, 1299, 798)


@dataclass
class Outcome:
    """One method's figures on one case."""

    method: str
    wrong: int
    wrong_upper95: float
    certain: int
    settled_by_risk: int
    undecided: int
    asked_mean: float
    asked_p95: float
    ci_coverage: float
    # the exact test only: the probability, computed, that its wrong side settles at some
    # look under this population (every other stop only removes such crossings)
    wrong_exact: float | None = None


@dataclass
class Case:
    shape: str
    total: int
    threshold: float
    offset: float
    true_score: float
    trials: int
    anytime: Outcome
    new: Outcome


def clopper_pearson_upper(k: int, n: int, conf: float = 0.95) -> float:
    """One-sided upper bound of a binomial rate (bisection on the exact tail)."""
    if k >= n:
        return 1.0
    target = 1 - conf
    lo, hi = k / n, 1.0
    for _ in range(60):
        p = (lo + hi) / 2
        tail = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))
        lo, hi = (p, hi) if tail > target else (lo, p)
    return hi


def _hit(rng: np.random.Generator, weights: list[float], total_c: int, k: np.ndarray) -> np.ndarray:
    """Per-document c (instructions right, ≤ k) with Σ c = total_c, correct in clusters."""
    ability = rng.beta(2.0, 0.6, size=len(k)) if weights else rng.random(len(k))
    c = np.minimum(k, rng.binomial(k, ability))
    while c.sum() != total_c:  # move single instructions until the total is exact
        i = rng.integers(len(k))
        if c.sum() < total_c and c[i] < k[i]:
            c[i] += 1
        elif c.sum() > total_c and c[i] > 0:
            c[i] -= 1
    return c


def population(
    shape: str, threshold: float, offset: float, rng: np.random.Generator
) -> tuple[Design, list[np.ndarray]]:
    """A fixed benchmark whose score is the closest achievable to threshold + offset on
    that side of the threshold; values per stratum (c per document)."""
    target = threshold + offset
    if shape.startswith("binary"):
        n = int(shape.split("-")[1])
        design = Design((Stratum(0, 1, n),), threshold)
        m = round(target * n)
        while passes(m / n, threshold) != (offset > 0):
            m += 1 if offset > 0 else -1
        values = np.zeros(n)
        values[rng.choice(n, m, replace=False)] = 1
        return design, [values]
    if shape == "ifeval-541":
        counts = {1: 300, 2: 170, 3: 60, 4: 11}  # 541 prompts, 864 instructions
        design = Design(tuple(Stratum(0, k, n) for k, n in counts.items()), threshold)
        ks = np.concatenate([np.full(n, k) for k, n in counts.items()])
        total_k = int(ks.sum())
        m = round(target * total_k)
        while passes(m / total_k, threshold) != (offset > 0):
            m += 1 if offset > 0 else -1
        c = _hit(rng, [1.0], m, ks)
        out, at = [], 0
        for n in counts.values():
            out.append(c[at : at + n].astype(float))
            at += n
        return design, out
    if shape.startswith("mmlu_pro-"):
        frac = 0.1 if shape == "mmlu_pro-1209" else 1.0
        sizes = [math.ceil(n * frac) for n in MMLU_PRO_SUBJECTS]
        design = Design(tuple(Stratum(g, 1, n) for g, n in enumerate(sizes)), threshold, 14)
        spread = rng.uniform(-0.15, 0.15, size=14)  # subjects differ, as they do
        spread -= spread.mean()
        m = np.clip(np.round((target + spread) * sizes), 0, sizes).astype(int)

        def score(m: np.ndarray) -> float:
            return float(exact_score(design, m[None, :].astype(float))[0])

        order = rng.permutation(14)
        i = 0
        while not (
            abs(score(m) - target) < 0.6 / min(sizes)
            and passes(score(m), threshold) == (offset > 0)
        ):
            g = order[i % 14]
            i += 1
            if score(m) < target and m[g] < sizes[g]:
                m[g] += 1
            elif score(m) >= target and m[g] > 0:
                m[g] -= 1
            if i > 100_000:
                raise RuntimeError("no population found")
        values = []
        for g, n in enumerate(sizes):
            v = np.zeros(n)
            v[rng.choice(n, m[g], replace=False)] = 1
            values.append(v)
        return design, values
    raise ValueError(shape)


def _simulate(
    design: Design,
    orders: list[np.ndarray],
    truth: bool,
    true_score: float,
    method: Method,
) -> Outcome:
    trials = orders[0].shape[0]
    plan = schedule(design)
    every = look_every(design.total, CONCURRENCY)
    dec = Decider(design, trials, every=every, method=method)
    decided = np.zeros(trials, dtype=np.int8)
    asked = np.full(trials, design.total)
    by_certain = np.zeros(trials, dtype=bool)
    covered = np.zeros(trials, dtype=bool)
    cursor = [0] * len(orders)
    for i, h in enumerate(plan):
        dec.add(h, orders[h][:, cursor[h]])
        cursor[h] += 1
        last = i + 1 == len(plan)
        if (i + 1) % every and not last:
            continue
        look = dec.look()
        now = look.decision()
        if last:  # everything asked: the exact score decides
            now = np.where(now == 0, 1 if truth else -1, now).astype(np.int8)
        fresh = (decided == 0) & (now != 0)
        if fresh.any():
            low, high = dec.interval(now)
            covered[fresh] = (low[fresh] - 1e-9 <= true_score) & (true_score <= high[fresh] + 1e-9)
            asked[fresh] = i + 1
            by_certain[fresh] = look.certain[fresh] != 0
            decided[fresh] = now[fresh]
        if (decided != 0).all():
            break
    wrong = int(((decided > 0) != truth).sum())
    early = asked < design.total
    return Outcome(
        method=method if method == "anytime" else ("exact" if uses_exact(design) else "anytime"),
        wrong=wrong,
        wrong_upper95=clopper_pearson_upper(wrong, trials),
        certain=int((by_certain & early).sum()),
        settled_by_risk=int((~by_certain & early).sum()),
        undecided=int((~early).sum()),
        asked_mean=float(asked.mean() / design.total),
        asked_p95=float(np.percentile(asked, 95) / design.total),
        ci_coverage=float(covered.mean()),
    )


def run_case(shape: str, threshold: float, offset: float, trials: int, seed: int) -> Case:
    rng = np.random.default_rng(seed)
    design, values = population(shape, threshold, offset, rng)
    truth_sum = np.array([[v.sum() for v in values]])
    true_score = float(exact_score(design, truth_sum)[0])
    truth = passes(true_score, threshold)
    orders = [rng.permuted(np.tile(v.astype(np.int8), (trials, 1)), axis=1) for v in values]
    old = _simulate(design, orders, truth, true_score, "anytime")
    new = old
    if uses_exact(design):
        new = _simulate(design, orders, truth, true_score, "auto")
        n, right = design.total, int(values[0].sum())
        test = ExactTest.build(
            n, worst_fail(design), look_points(n, look_every(n, CONCURRENCY)), design.alpha
        )
        wrong_side = (n - right, test.down.bound) if truth else (right, test.up.bound)
        new.wrong_exact = crossing(n, wrong_side[0], test.looks, wrong_side[1])
    return Case(
        shape=shape,
        total=design.total,
        threshold=threshold,
        offset=offset,
        true_score=round(true_score, 5),
        trials=trials,
        anytime=old,
        new=new,
    )


@dataclass
class Boundary:
    total: int
    threshold: float
    right: int  # the population's right answers: M0 (fails by one) or M0 + 1
    trials: int
    wrong: int
    computed: float  # the test's own error probability at this population (spent α)


def boundary_case(n: int, threshold: float, right: int, trials: int, seed: int) -> Boundary:
    """The exact test alone (no certain stop, which only ever ends a run on the true side)
    at the hardest population of its null; ``right`` is M0 or M0 + 1."""
    design = Design((Stratum(0, 1, n),), threshold)
    m0 = worst_fail(design)
    test = ExactTest.build(n, m0, look_points(n, look_every(n, CONCURRENCY)), design.alpha)
    rng = np.random.default_rng(seed)
    values = np.zeros(n, dtype=np.int8)
    values[:right] = 1
    truth_passes = right > m0
    wrong = 0
    for chunk in range(0, trials, 20_000):
        k = min(20_000, trials - chunk)
        counts = np.cumsum(rng.permuted(np.tile(values, (k, 1)), axis=1), axis=1, dtype=np.int32)
        decided = np.zeros(k, dtype=np.int8)
        for j, at in enumerate(test.looks):
            now = test.settled(j, counts[:, at - 1].astype(np.int64))
            decided = np.where(decided == 0, now, decided).astype(np.int8)
        wrong += int((decided < 0).sum() if truth_passes else (decided > 0).sum())
    side = test.down if truth_passes else test.up
    return Boundary(n, threshold, right, trials, wrong, side.spent[-1])


SHAPES = (
    ("binary-198", 0.630),  # GPQA-Diamond: 198 right/wrong questions
    ("ifeval-541", 0.814),  # IFEval: instructions right / instructions, over 541 prompts
    ("mmlu_pro-1209", 0.621),  # MMLU-Pro at limit 0.1: mean of 14 subject means
    ("binary-1200", 0.621),  # a large right/wrong set, unstratified
    ("mmlu_pro-12032", 0.621),  # MMLU-Pro in full (--limit 1.0): how the share falls with size
)


def _wrong(o: Outcome, trials: int) -> str:
    out = f"{o.wrong}/{trials} (≤ {o.wrong_upper95:.3%})"
    if o.wrong_exact is None:
        return out
    exact = f"{o.wrong_exact:.3%}" if o.wrong_exact >= 5e-6 else "< 0.001%"
    return f"{out}; exact {exact}"


def markdown(cases: list[Case]) -> str:
    """The table docs/quality.md shows."""
    lines = [
        "| benchmark | N | true − threshold | documents asked, mean (p95): anytime → new "
        "| wrong decisions, anytime (95 % upper bound) | wrong decisions, new (95 % upper "
        "bound; exact probability) | new: settled certain / at risk / all asked "
        "| new: 95 % interval covered |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        a, n = c.anytime, c.new
        same = a is n
        asked = f"{a.asked_mean:.1%} ({a.asked_p95:.0%})"
        if not same:
            asked += f" → **{n.asked_mean:.1%}** ({n.asked_p95:.0%})"
        lines.append(
            f"| {c.shape.split('-')[0]} | {c.total} | {c.offset * 100:+.1f} pt | {asked} "
            f"| {_wrong(a, c.trials)} | {'same test' if same else _wrong(n, c.trials)} "
            f"| {n.certain} / {n.settled_by_risk} / {n.undecided} | {n.ci_coverage:.1%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--trials", type=int, default=4000, help="random orders per case (default: 4000)"
    )
    p.add_argument(
        "--seed", type=int, default=1, help="seed of populations and orders (default: 1)"
    )
    p.add_argument(
        "--shapes", default=",".join(s for s, _ in SHAPES), help="comma list (default: all)"
    )
    p.add_argument(
        "--boundary",
        type=int,
        default=0,
        help="orders per boundary population of the exact test (default: 0, none)",
    )
    p.add_argument("--json", action="store_true", help="the figures as JSON on stdout")
    args = p.parse_args(argv)
    wanted = args.shapes.split(",")
    cases: list[Case] = []
    started = time.perf_counter()
    for s, (shape, threshold) in enumerate(SHAPES):
        if shape not in wanted:
            continue
        for o, offset in enumerate(OFFSETS):
            cases.append(
                run_case(shape, threshold, offset, args.trials, args.seed * 1000 + s * 10 + o)
            )
            c = cases[-1]
            for out in {id(c.anytime): c.anytime, id(c.new): c.new}.values():
                print(
                    f"{c.shape:<14} {c.offset:+.3f} (true {c.true_score:.4f}) {out.method:<7} "
                    f"wrong {out.wrong}/{c.trials} (≤{out.wrong_upper95:.4%}) certain "
                    f"{out.certain} risk {out.settled_by_risk} all {out.undecided} asked "
                    f"{out.asked_mean:.1%} (p95 {out.asked_p95:.1%}) ci {out.ci_coverage:.1%}"
                    + ("" if out.wrong_exact is None else f" exact wrong {out.wrong_exact:.4%}"),
                    file=sys.stderr,
                    flush=True,
                )
    bounds: list[Boundary] = []
    if args.boundary:
        for n, threshold in ((198, 0.630), (1200, 0.621)):
            m0 = worst_fail(Design((Stratum(0, 1, n),), threshold))
            for right in (m0, m0 + 1):
                bounds.append(boundary_case(n, threshold, right, args.boundary, args.seed + right))
                b = bounds[-1]
                print(
                    f"boundary N {n} right {right} ({right / n:.4f}): wrong {b.wrong}/{b.trials} "
                    f"({b.wrong / b.trials:.4%}), computed {b.computed:.4%}",
                    file=sys.stderr,
                    flush=True,
                )
    outcomes = [c.new for c in cases] + [c.anytime for c in cases if c.anytime is not c.new]
    total_wrong = sum(o.wrong for o in outcomes)
    total_trials = args.trials * len(outcomes)
    print(
        f"all cases, both methods: wrong {total_wrong}/{total_trials} "
        f"(95 % upper bound {clopper_pearson_upper(total_wrong, total_trials):.4%}) "
        f"in {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    if args.json:
        out = {"cases": [asdict(c) for c in cases], "boundary": [asdict(b) for b in bounds]}
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
    else:
        print(markdown(cases))
        for b in bounds:
            print(
                f"boundary: N {b.total}, threshold {b.threshold}, {b.right} right: wrong "
                f"{b.wrong}/{b.trials} ({b.wrong / b.trials:.4%}), the test's own "
                f"{b.computed:.4%}"
            )
    ok_cases = all(
        o.wrong_exact <= 0.001 if o.wrong_exact is not None else o.wrong_upper95 <= 0.001
        for o in outcomes
    )
    ok_bounds = all(b.computed <= 0.001 for b in bounds)
    return 0 if ok_cases and ok_bounds else 1


if __name__ == "__main__":
    sys.exit(main())
