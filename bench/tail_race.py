"""How tune's race on a tail SLO (harness/tune/trial/tail_race.py) stops trials, over many
simulated trials with known truth: how often a trial that meets its SLO is stopped, and
how many requests a broken one saves.

Each row: a shape (the latencies of one bucket), a percentile with the runs a full bucket
makes (``cap``), and r = true percentile / the SLO's bound (r <= 1: the trial meets the SLO;
r > 1: it breaks it). ``--trials`` simulated trials of ``cap`` timed successes each are
fed to the rule; per row:

- ``full met``: the share whose FULL run the end-of-run check calls met (harness/stats/tails.py,
  LoadGen's fixed-bound rule at 99 %): what the trial's verdict would be without the race.
- ``stopped``: the share the race stopped before its last run, split by reason: ``cannot``
  (its samples can no longer show the SLO met in this run: deterministic, the end check
  would fail too) and ``broken`` (the anytime-valid lower bound of the percentile above
  the SLO's bound).
- ``broken claimed``: the share where the anytime-valid rule ALONE (the other reason
  ignored) calls a meeting trial broken at any look, with its Wilson 95 % upper bound:
  the rule's promise is <= 5 % (4.5 % computed exactly for independent samples).
- ``changed``: stopped trials whose full run would have been called met: what the race
  costs in verdicts (<= ``broken claimed``; 0 for ``cannot`` stops by construction).
- ``runs used``: the mean share of ``cap`` a trial measured (a broken trial's saving is
  the rest).

Shapes (bench/tails.py's): ``lognormal`` and ``stragglers`` (independent); ``drifting``
(slows by half over the run; the truth is the run's marginal) and ``autocorr`` (AR(1) in
log space, phi 0.9), where independence fails and no promise is made.

The rule is counted, not sorted: X_(l) > bound exactly when fewer than l samples are at
or under it. The first ``--check`` trials of every row are also fed, request by request,
to the real ``TailRace`` (RequestRows in, a stop reason out), and must stop at the same
run for the same reason.

Usage: .venv/bin/python bench/tail_race.py [--trials 20000] [--seed 0] [--check 20]
[--json | --markdown]  (~30 s at the defaults)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tails import Draw, _invert, shapes  # bench/tails.py, beside this file

from harness.latency.report import RequestRow
from harness.stats.intervals import wilson_interval
from harness.stats.median_sequence import ALPHA, BUDGET, MIN_RUNS
from harness.stats.quantile_sequence import lower_boundary
from harness.stats.tails import PERCENTILES, over_allowed
from harness.tune.trial.tail_race import TailRace, TailWatch

CASES = (("p90", 50), ("p90", 200), ("p99", 1000))  # (percentile, runs of a full bucket)
RATIOS = (0.5, 1.0, 1.5, 2.0)  # true percentile / the SLO's bound
SHAPES = ("lognormal", "stragglers", "drifting", "autocorr")


@dataclass(frozen=True)
class RaceRow:
    shape: str
    pct: str
    cap: int
    ratio: float
    bound_ms: float
    full_met: float
    stopped: float
    stopped_cannot: float
    stopped_broken: float
    broken_claimed: float  # the anytime-valid rule alone, at any look
    broken_claimed_hi: float | None
    changed: float
    runs_used: float  # mean share of cap


def simulate(x: np.ndarray, p: float, bound: float) -> dict[str, np.ndarray]:
    """Per trial (rows of ``x``): the run it stops at (cap: not stopped), why, the rule
    alone, and the full run's end check."""
    trials, cap = x.shape
    seq = lower_boundary(cap, p, MIN_RUNS, ALPHA, BUDGET)
    allowed = over_allowed(cap, p)
    over = np.cumsum(x > bound, axis=1)  # over_n, n = 1..cap
    under = np.arange(1, cap + 1) - over
    ranks = np.array([seq.rank(n) for n in range(1, cap + 1)])
    broken = (ranks > 0) & (under < ranks)
    cannot = (over >= 1) & (over > allowed)
    stop = broken | cannot
    first = np.where(stop.any(axis=1), stop.argmax(axis=1) + 1, cap + 1)
    at = np.clip(first, 1, cap) - 1
    why_cannot = stop.any(axis=1) & cannot[np.arange(trials), at]
    return {
        "first": first,
        "cannot": why_cannot,
        "broken_alone": broken.any(axis=1),
        "full_met": over[:, -1] <= allowed,
    }


def check_real(x: np.ndarray, p: float, bound: float, got: dict[str, np.ndarray]) -> None:
    """The real rule, fed row by row, stops where the counting says, for the same reason."""
    cap = x.shape[1]
    watch = TailWatch(0, "bench", "b", "strict", "ttft_ms", p, bound)
    for i, xs in enumerate(x):
        race = TailRace([watch], cap)
        stop_at, why = cap + 1, ""
        for n, v in enumerate(xs, start=1):
            row = RequestRow(bucket="b", mode="strict", phase="timed", index=n, ok=True)
            row.ttft_ms = float(v)
            if (said := race.after(row)) is not None:
                stop_at, why = n, said
                break
        cannot = "cannot be shown met" in why
        if stop_at != got["first"][i] or (stop_at <= cap and cannot != got["cannot"][i]):
            raise SystemExit(f"the counting and the rule disagree at trial {i}: {stop_at}, {why}")


def measure(
    name: str, draw: Draw, truth: float, pct: str, cap: int, ratio: float, a: argparse.Namespace
) -> RaceRow:
    p = PERCENTILES[pct]
    rng = np.random.default_rng(
        a.seed * 100_000 + SHAPES.index(name) * 1000 + cap + int(ratio * 10)
    )
    x = draw(rng, a.trials, cap)
    bound = truth / ratio
    got = simulate(x, p, bound)
    check_real(x[: a.check], p, bound, got)
    stopped = got["first"] <= cap
    claimed = int(got["broken_alone"].sum())
    ci = wilson_interval(claimed, a.trials)
    used = np.minimum(got["first"], cap) / cap
    return RaceRow(
        shape=name,
        pct=pct,
        cap=cap,
        ratio=ratio,
        bound_ms=bound,
        full_met=float(got["full_met"].mean()),
        stopped=float(stopped.mean()),
        stopped_cannot=float((stopped & got["cannot"]).mean()),
        stopped_broken=float((stopped & ~got["cannot"]).mean()),
        broken_claimed=claimed / a.trials,
        broken_claimed_hi=ci[1] if ci else None,
        changed=float((stopped & got["full_met"]).mean()),
        runs_used=float(used.mean()),
    )


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1%}"


def cells(r: RaceRow) -> list[str]:
    claimed = f"{_pct(r.broken_claimed)} (≤ {_pct(r.broken_claimed_hi)})"
    return [
        r.shape,
        r.pct,
        str(r.cap),
        f"{r.ratio:g}",
        _pct(r.full_met),
        _pct(r.stopped),
        _pct(r.stopped_cannot),
        _pct(r.stopped_broken),
        claimed,
        _pct(r.changed),
        _pct(r.runs_used),
    ]


HEAD = (
    "shape",
    "pct",
    "cap",
    "r",
    "full met",
    "stopped",
    "cannot",
    "broken",
    "broken claimed (95 % ≤)",
    "changed",
    "runs used",
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000, help="simulated trials per row")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", type=int, default=20, help="trials per row fed to the real rule")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--markdown", action="store_true", help="the table as markdown on stdout")
    a = ap.parse_args()
    started = time.perf_counter()
    rows: list[RaceRow] = []
    known = shapes()
    for name in SHAPES:
        draw, cdf = known[name]
        for pct, cap in CASES:
            truth = _invert(cdf, PERCENTILES[pct])
            rows += [measure(name, draw, truth, pct, cap, r, a) for r in RATIOS]
    table = Table(
        title=f"tail-SLO race over {a.trials:,} trials per row (r: true percentile / the "
        "SLO's bound; promise: broken claimed <= 5 % where r <= 1, independent samples)",
        title_justify="left",
    )
    for col in HEAD:
        table.add_column(col, justify="left" if col in ("shape", "pct") else "right")
    for r in rows:
        table.add_row(*cells(r))
    Console(stderr=True, width=170).print(table)
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    if a.markdown:
        print("| " + " | ".join(HEAD) + " |")
        print("|---|---|" + "---:|" * (len(HEAD) - 2))
        for r in rows:
            print("| " + " | ".join(cells(r)) + " |")
    if a.json:
        out = {"trials": a.trials, "seed": a.seed, "rows": [asdict(r) for r in rows]}
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
