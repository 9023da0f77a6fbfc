"""``harness tune`` against an exhaustive grid and random search, on seeded landscapes with
known truth (simulated measurements; no server is started).

Each landscape is a 48-point space (``max_num_seqs`` 4/8/16/32 × ``quant`` bf16/fp8/int4 ×
``spec`` off/on × ``graphs`` off/on) of the Efficient Qwen profile. Every candidate has a
true median per latency bucket (the profile's baselines over a true speedup) and a true
accuracy per quality gate. Built in:

- a trap: the fastest candidate fails one quality gate (drawn at random) by 1–3 points;
- a near-tie: the best passing candidate's runner-up is within 1 % of it;
- a crash: one candidate fails to start or dies under load;
- drift: every request's latency is scaled by 1 + r·(hours since the search began),
  r drawn in ±D %/hour per landscape (``--drift D``, default 1: a 12-hour grid ends up to
  12 % off); plus lognormal noise (σ 0.5–3 %) and 2 % stragglers.

A measurement draws what a server would give: each timed request a latency, each quality
document right with its gate's true accuracy, at the profile's sizes (``limit`` 0.1:
MMLU-Pro 1,209 documents, IFEval 55, GPQA-Diamond 20) and thresholds.

Methods, each on its own simulated clock:

- ``tune``: ``harness.tune.run.run_tune`` itself (Optuna, ``--sampler auto``: TPE at this
  budget, the baseline first, racing on, quality with ``--decide``), with the trial's
  measurement replaced through ``run_tune``'s ``measure`` seam by a simulation that takes
  the real trial's steps: the latency config built from the profile and raced by the same
  ``RaceSeat``/``Racer`` (harness/tune/trial/racing.py, rule harness/tune/trial/race.py), then the same
  decisions in the same order (harness/tune/record/outcome.py: ``after_speed``, ``after_quality``).
  ``--decide`` is simulated by its certainty rule only (stop once no remaining answer can
  change the decision): never wrong, and later than the real test, which also stops on a
  0.1 %-risk bound; the cost counted for tune is therefore an upper bound.
- ``grid``: all 48 candidates with the full procedure (5 + 50 requests per bucket, every
  quality document), the best measured passing candidate picked;
- ``random``: the same full procedure on a random sample of the tune's trial budget.

Printed per method: how often the pick truly fails a gate (goal 0), the mean chance the
grader's own draw fails the pick, how often the pick is within 2 % of the true best passing
candidate (goal >= 95 %), and the cost: requests and simulated wall hours (restarts,
checks, latency requests, quality at 8 concurrent) against the grid's (goal <= 1/4).
Racing's own error: among lost races, how often the stopped candidate's true score was
at least the incumbent's measured score (the rule's promise: <= 5 %, without drift).

Usage: .venv/bin/python bench/tune_landscape.py [--landscapes 100] [--seed 0] [--budget 16]
       [--sampler auto|tpe|random|grid] [--drift 1] [--answers fixed|redrawn] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tune_landscape_truth import (
    BASELINE,
    CHECK_REQUESTS,
    CHECK_S,
    CONCURRENCY,
    DOC_S,
    DOCS,
    PARAMS,
    SETUP_S,
    STOP_S,
    Key,
    Landscape,
    Truth,
    grader_fail_chance,
    key_of,
    make_landscape,
    true_score,
    truly_passes,
)

from harness.data.layout import SAMPLES_DIR
from harness.gate.hooks import NO_HOOKS, GateHooks
from harness.latency.config import LatencyConfig, LatencyOverrides, from_profile
from harness.profiles import Profile, load_profile
from harness.quality.decide_stats import passes
from harness.stats.intervals import wilson_interval
from harness.target import Target
from harness.tune.record.outcome import TrialResult, after_quality, after_speed
from harness.tune.run import run_tune
from harness.tune.space import Choice, Space, parse_space
from harness.tune.study.config import TuneConfig
from harness.tune.study.samplers import SamplerName
from harness.tune.trial.racing import Racer, RaceSeat


@dataclass
class Machine:
    """One method's simulated server machine: its clock, its requests, its randomness."""

    land: Landscape
    rng: np.random.Generator
    t_s: float = 0.0
    requests: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    races: int = 0
    false_stops: int = 0

    def latency(self, median_ms: float) -> float:
        ms = median_ms * (1 + self.land.drift_per_h * self.t_s / 3600)
        ms *= math.exp(self.rng.normal(0, self.land.sigma))
        if self.rng.random() < 0.02:
            ms *= self.rng.uniform(1.2, 2.0)
        self.t_s += ms / 1000
        self.requests += 1
        return ms

    def start(self) -> None:
        self.t_s += self.land.cold_s + CHECK_S + STOP_S
        self.requests += CHECK_REQUESTS

    def quality(self, profile: Profile, t: Truth, decide: bool) -> tuple[str | None, list[str]]:
        """Each gate's documents drawn; with ``decide``, asked until the decision is certain.
        Returns the first failing gate's reason (None: all pass)."""
        assert profile.quality is not None
        blocking = None
        for b in profile.quality.benchmarks:
            n = DOCS[b.name]
            if t.sets:  # the same answers, asked in a fresh order
                right = self.rng.permutation(t.sets[b.name])
            else:
                right = self.rng.random(n) < t.acc[b.name]
            asked = n
            if decide:
                c = np.cumsum(right)
                j = np.arange(1, n + 1)
                sure = np.round(c / n, 4) >= b.threshold
                sure |= np.round((c + n - j) / n, 4) < b.threshold
                asked = int(np.argmax(sure)) + 1
            self.requests += asked
            self.t_s += SETUP_S + asked * DOC_S[b.name] / CONCURRENCY
            score = float(right.mean())
            if blocking is None and not passes(score, b.threshold):
                blocking = f"quality gate failed: {b.title} {score:.4f} < {b.threshold}"
        return blocking, []


def latency_config(profile: Profile) -> LatencyConfig:
    return from_profile(
        profile, Target(folder=Path("."), url="http://127.0.0.1:1"), LatencyOverrides()
    )


def measure_latency(m: Machine, cfg: LatencyConfig, t: Truth, racer: Racer | None) -> Any:
    """The buckets in order, warm-ups then timed requests; the racer asked after each.
    Returns (score, raced why) or "crashed"."""
    values: dict[str, list[float]] = {}
    for b in cfg.buckets:
        for _ in range(cfg.warmup):
            m.latency(t.medians[b.name])
        got = values.setdefault(b.name, [])
        for _ in range(cfg.runs):
            if t.crash == "load" and m.requests >= t.crash_after:
                return "crashed"
            got.append(m.latency(t.medians[b.name]))
            if racer is not None and racer.add("official", b.name, True, got[-1]):
                return None, racer.stopped
    score = statistics.fmean(b.baseline_ms / statistics.median(values[b.name]) for b in cfg.buckets)
    return score, None


def simulated_trial(land: Landscape, m: Machine, profile: Profile) -> Any:
    """``run_tune``'s ``measure``: the real trial's steps and decisions on simulated draws."""
    cfg0 = latency_config(profile)

    def measure(
        space: Space,
        profile: Profile,
        values: Mapping[str, Choice],
        folder: Path,
        incumbent: float | None,
        *,
        name: str,
        reference: Path | None = None,  # the SLOs' baseline folder: no SLOs here
        hooks: GateHooks = NO_HOOKS,  # progress lines: none in the bench
    ) -> TrialResult:
        t = land.cands[key_of(values)]
        m.start()
        if t.crash == "start":
            return TrialResult("failed-to-start", "exited before ready")
        seat = RaceSeat(space.race, incumbent)
        cfg = seat.configure(cfg0)
        got = measure_latency(m, cfg, t, seat.racer)
        if got == "crashed":
            return TrialResult("crashed", "the server exited during latency")
        score, raced = got
        ended = after_speed(
            raced=raced,
            bound=seat.racer.bound if seat.racer else None,
            blocking=None,
            score=score,
            incumbent=incumbent,
            quality_next=True,
        )
        if ended is not None:
            if ended.status == "lost-race":
                m.races += 1
                m.false_stops += int(true_score(profile, t) >= (incumbent or 0.0))
            return ended
        blocking, _ = m.quality(profile, t, decide=space.options.decide)
        return after_quality(blocking=blocking, score=score, incumbent=incumbent, verdict="PASS")

    return measure


def full_procedure(m: Machine, profile: Profile, cfg: LatencyConfig, key: Key) -> float | None:
    """Every request and every document; the measured score when every gate passed."""
    t = m.land.cands[key]
    m.start()
    if t.crash == "start":
        return None
    got = measure_latency(m, cfg, t, None)
    if got == "crashed":
        return None
    blocking, _ = m.quality(profile, t, decide=False)
    return None if blocking else float(got[0])


def space_text(budget: int) -> str:
    lines = [
        'name = "landscape"',
        "[serve]",
        'command = "sim --port {port} ' + " ".join(f"{{{k}}}" for k in PARAMS) + '"',
        "[params]",
        *[f"{k} = {json.dumps(v)}" for k, v in PARAMS.items()],
        "[baseline]",
        *[f"{k} = {json.dumps(v)}" for k, v in BASELINE.items()],
        "[budget]",
        f"trials = {budget}",
        "[options]",
        f'data_dir = "{SAMPLES_DIR}"',
    ]
    return "\n".join(lines) + "\n"


@dataclass
class Pick:
    method: str
    key: Key | None
    requests: int
    hours: float


def run_landscape(
    profile: Profile,
    seed: int,
    budget: int,
    tmp: Path,
    fixed: bool,
    drift_pct: float,
    sampler: SamplerName = "auto",
) -> tuple[Landscape, list[Pick], Machine]:
    land = make_landscape(profile, seed, fixed, drift_pct)
    cfg = latency_config(profile)
    picks: list[Pick] = []
    for method, keys in (
        ("grid", list(land.cands)),
        (
            "random",
            [
                list(land.cands)[i]
                for i in np.random.default_rng(seed + 7).permutation(len(land.cands))[:budget]
            ],
        ),
    ):
        m = Machine(land, np.random.default_rng([seed, 1 if method == "grid" else 2]))
        scores = {k: full_procedure(m, profile, cfg, k) for k in keys}
        ok = {k: s for k, s in scores.items() if s is not None}
        best = max(ok, key=lambda k: ok[k]) if ok else None
        picks.append(Pick(method, best, m.requests, m.t_s / 3600))
    m = Machine(land, np.random.default_rng([seed, 3]))
    text = space_text(budget)
    space = parse_space(text)
    folder = tmp / f"l{seed}"
    tcfg = TuneConfig(
        space=space, space_text=text, profile=profile, folder=folder, seed=seed, sampler=sampler
    )
    report = run_tune(tcfg, measure=simulated_trial(land, m, profile))
    best = key_of(report.best.params) if report.best else None
    m.statuses.update(t.status.value for t in report.trials)
    picks.append(Pick("tune", best, m.requests, m.t_s / 3600))
    return land, picks, m


@dataclass
class Row:
    method: str
    landscapes: int = 0
    gate_failing: int = 0
    trap_picked: int = 0
    grader_fail: float = 0.0
    within_2pct: int = 0
    no_pick: int = 0
    requests: float = 0.0
    hours: float = 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--landscapes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--budget",
        type=int,
        default=16,
        help="tune's and random's trials (16: a third of the grid)",
    )
    ap.add_argument(
        "--sampler",
        choices=("auto", "tpe", "random", "grid"),
        default="auto",
        help="harness tune's --sampler (auto: TPE at this budget)",
    )
    ap.add_argument(
        "--answers",
        choices=("fixed", "redrawn"),
        default="fixed",
        help="fixed: each candidate's answers drawn once (temperature 0: the grader sees the "
        "same); redrawn: every measurement, the grader's too, draws anew",
    )
    ap.add_argument(
        "--drift", type=float, default=1.0, help="the largest drift, in %% per hour (either way)"
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    profile = load_profile()
    rows = {m: Row(m) for m in ("tune", "grid", "random")}
    statuses: Counter[str] = Counter()
    races = false_stops = 0
    t0 = time.monotonic()
    shm = Path("/dev/shm")  # the study's SQLite commits in memory where the system has it
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        for i in range(args.landscapes):
            fixed = args.answers == "fixed"
            land, picks, tm = run_landscape(
                profile, args.seed + i, args.budget, Path(tmp), fixed, args.drift, args.sampler
            )
            statuses += tm.statuses
            races += tm.races
            false_stops += tm.false_stops
            passing = [t for t in land.cands.values() if truly_passes(profile, t)]
            top = max(true_score(profile, t) for t in passing)
            for p in picks:
                r = rows[p.method]
                r.landscapes += 1
                r.requests += p.requests
                r.hours += p.hours
                if p.key is None:
                    r.no_pick += 1
                    continue
                t = land.cands[p.key]
                r.gate_failing += int(not truly_passes(profile, t))
                r.trap_picked += int(p.key == land.trap)
                r.grader_fail += grader_fail_chance(profile, t)
                good = truly_passes(profile, t) and true_score(profile, t) >= 0.98 * top
                r.within_2pct += int(good)
    elapsed = time.monotonic() - t0
    n = args.landscapes
    grid = rows["grid"]
    out: dict[str, Any] = {
        "landscapes": n,
        "seed": args.seed,
        "budget": args.budget,
        "answers": args.answers,
        "sampler": args.sampler,
        "drift_pct_per_hour": args.drift,
        "seconds": round(elapsed, 1),
        "rows": [],
        "tune_statuses": dict(statuses),
        "races": races,
        "race_false_stops": false_stops,
    }
    print(
        f"{n} landscapes (seed {args.seed}), 48 candidates each, answers {args.answers}, "
        f"drift up to ±{args.drift:g} %/h, "
        f"budget {args.budget} trials for tune (--sampler {args.sampler}) and random; "
        f"{elapsed:.0f} s",
        file=sys.stderr,
    )
    head = (
        f"{'method':<7} {'gate-failing pick':>18} {'trap':>5} {'grader FAIL risk':>17} "
        f"{'within 2 % of best (95 % CI)':>29} {'no pick':>8} {'requests':>9} {'hours':>7} "
        f"{'cost/grid':>10}"
    )
    print(head, file=sys.stderr)
    for r in rows.values():
        lo, hi = wilson_interval(r.within_2pct, n) or (0.0, 1.0)
        picked = max(1, n - r.no_pick)
        cost = r.hours / grid.hours if grid.hours else float("nan")
        req = r.requests / grid.requests if grid.requests else float("nan")
        print(
            f"{r.method:<7} {r.gate_failing:>5} ({r.gate_failing / n:6.1%})    {r.trap_picked:>5} "
            f"{r.grader_fail / picked:>16.1%} {r.within_2pct / n:>11.1%} ({lo:.1%}–{hi:.1%})    "
            f"{r.no_pick:>8} {r.requests / n:>9.0f} {r.hours / n:>7.2f} "
            f"{cost:>5.2f}/{req:.2f}",
            file=sys.stderr,
        )
        out["rows"].append(
            {
                **asdict(r),
                "within_2pct_ci": [lo, hi],
                "cost_hours_vs_grid": cost,
                "requests_vs_grid": req,
            }
        )
    rate = false_stops / races if races else 0.0
    print(
        f"tune statuses: {dict(sorted(statuses.items()))}; lost races {races}, of which the "
        f"stopped candidate's true score was >= the incumbent's measured score: {false_stops} "
        f"({rate:.1%})",
        file=sys.stderr,
    )
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
