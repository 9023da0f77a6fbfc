"""The race's pure rule (harness/tune/trial/race.py), its trial-side adapter and the order a
trial's decisions are taken in (harness/tune/record/outcome.py), on literal numbers. That the
rule stops a candidate that could win at most alpha of the time is the bench's
(bench/tune_landscape.py): a rate needs many simulated runs, not a unit test."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from harness.latency.report import RequestRow
from harness.profiles import load_profile
from harness.tune.record.outcome import TrialResult, after_quality, after_speed
from harness.tune.space import Race, parse_space
from harness.tune.trial.race import RaceSpec, race_look, speedup_bound
from harness.tune.trial.racing import Racer, RaceSeat
from tests.fixtures.configs import latency_config

ONE = RaceSpec(buckets=(("short", 1000.0),), cap=20)
TWO = RaceSpec(buckets=(("short", 1000.0), ("long", 2000.0)), cap=20)
TEN = [100.0 + i for i in range(10)]  # 100 … 109 ms


def test_the_error_budget_is_split_across_buckets() -> None:
    one, three = ONE.bound_sequence(), RaceSpec((("a", 1.0), ("b", 1.0), ("c", 1.0)), 20)
    seq3 = three.bound_sequence()
    assert (one.alpha, seq3.alpha) == (pytest.approx(0.05), pytest.approx(0.05 / 3))
    assert one.miss <= 0.045 and seq3.miss <= 0.045 / 3
    # a smaller share: an interval no narrower at every look (rank 2 vs 1 at n = 10)
    assert [one.rank(n) for n in (9, 10, 14, 20)] == [0, 2, 3, 5]
    assert [seq3.rank(n) for n in (9, 10, 12, 20)] == [0, 1, 2, 4]


def test_one_bucket_stops_once_its_bound_is_below_the_incumbent() -> None:
    # n = 10: rank 2, the lower bound of the median is the 2nd smallest value, 101 ms
    look = race_look(ONE, {"short": TEN}, incumbent=10.0)
    assert look.upper == pytest.approx(1000 / 101) and look.stop
    assert look.why == "score ≤ 9.90 (95 % bound) < incumbent 10.00 after 10 of 20 runs in short"
    assert not race_look(ONE, {"short": TEN}, incumbent=9.9).stop  # 9.90099 > 9.9
    assert not race_look(ONE, {"short": TEN}, incumbent=None).stop  # no incumbent: no race


def test_no_interval_before_the_floor_means_no_stop() -> None:
    look = race_look(ONE, {"short": TEN[:9]}, incumbent=1e9)
    assert look.upper is None and not look.stop and look.why == ""
    assert speedup_bound([], 1000.0, ONE.bound_sequence(), None) is None
    assert speedup_bound([], 1000.0, ONE.bound_sequence(), 7.0) == 7.0


def test_an_unmeasured_bucket_is_unbounded_unless_a_cap_is_declared() -> None:
    look = race_look(TWO, {"short": TEN, "long": []}, incumbent=1.0)
    assert look.upper is None and not look.stop
    assert look.bucket_upper == {"short": pytest.approx(1000 / 100), "long": None}
    capped = RaceSpec(TWO.buckets, 20, max_speedup=4.0)
    look = race_look(capped, {"short": TEN}, incumbent=7.5)
    # short: min(1000 / 100, 4) = 4; long (unmeasured): the cap, 4: mean 4 < 7.5
    assert look.upper == pytest.approx(4.0) and look.stop
    assert look.why.endswith("after 10 of 20 runs in short (unmeasured buckets at max_speedup 4)")


def test_both_buckets_bounded_the_score_bound_is_their_mean() -> None:
    # k = 2 at cap 20: rank 1 at n = 10 (the minimum)
    look = race_look(TWO, {"short": TEN, "long": [400.0 + i for i in range(10)]}, 8.0)
    assert look.upper == pytest.approx((1000 / 100 + 2000 / 400) / 2)
    assert look.stop and "after 10 of 20 runs in long" in look.why


def _row(mode: str, bucket: str, ok: bool, ms: float | None) -> RequestRow:
    return RequestRow(bucket=bucket, mode=mode, phase="timed", index=0, ok=ok, e2e_ms=ms)


def test_the_racer_counts_successes_of_the_scored_mode_only() -> None:
    racer = Racer(ONE, incumbent=10.0)
    for ms in TEN[:9]:
        assert racer.after(_row("official", "short", True, ms)) is None
    assert racer.after(_row("official", "short", False, None)) is None  # a failure: no value
    assert racer.after(_row("strict", "short", True, 50.0)) is None  # not the scored mode
    assert racer.values == {"short": TEN[:9]}
    why = racer.after(_row("official", "short", True, 109.0))
    assert why is not None and why.startswith("score ≤ 9.90") and racer.stopped == why
    assert racer.bound == pytest.approx(1000 / 101)


def test_a_trials_decisions_come_in_the_gates_order() -> None:
    kw = dict(bound=None, score=5.0, incumbent=6.0, quality_next=True)
    failed = after_speed(raced="lost", blocking="check failed", **kw)
    assert failed is not None and failed.status == "gate-failed"
    raced = after_speed(raced="score ≤ 5.5 …", blocking=None, **{**kw, "bound": 5.5})
    assert raced is not None and (raced.status, raced.score, raced.bound) == (
        "lost-race",
        None,
        5.5,
    )
    assert raced.objective == 5.5  # the study is told the bound it stopped at
    slower = after_speed(raced=None, blocking=None, **kw)
    assert slower is not None and slower.status == "slower" and slower.objective == 5.0
    assert slower.why == "score 5.000 ≤ incumbent 6.000: quality not measured"
    # 0.08 % below the incumbent is no evidence of "slower": a tie within the noise band
    tie = after_speed(raced=None, blocking=None, **{**kw, "score": 5.9952})
    assert tie is not None and tie.status == "tie" and tie.status.feasible
    assert tie.why == (
        "score 5.995 within noise of incumbent 6.000 (−0.08 %, under the 2 % minimum effect): "
        "a tie, quality not measured"
    )
    assert after_speed(raced=None, blocking=None, **{**kw, "score": 6.5}) is None
    assert after_speed(raced=None, blocking=None, **{**kw, "quality_next": False}) is None
    best = after_quality(blocking=None, score=6.5, incumbent=6.0, verdict="PASS")
    assert (best.status, best.why) == ("ok", "new incumbent")
    gate = after_quality(blocking="MMLU-Pro 0.60 < 0.621", score=6.5, incumbent=6.0, verdict="FAIL")
    # a gate-failed trial teaches the sampler its measured speed (harness/tune/study/sampling.py)
    assert gate.status == "gate-failed" and gate.objective == 6.5
    assert TrialResult("crashed", "x", 3.0).objective == 0.0
    assert TrialResult("disqualified", "x").objective == 0.0
    assert TrialResult("gate-failed", "no speed measured").objective == 0.0
    # a contest rule broken: its 6,949× is not believed, never the incumbent, objective 0
    cheat = after_quality(
        blocking="audit rule cached_answers failed: response cache",
        audit="audit rule cached_answers failed: response cache",
        score=6949.0,
        incumbent=6.0,
        verdict="FAIL",
    )
    assert (cheat.status, cheat.objective) == ("audit-failed", 0.0)
    assert cheat.why.startswith("audit rule cached_answers failed")


SPACE = """
[serve]
command = "srv --port {port} --n {n}"
[params]
n = [1, 2]
"""


def test_race_section_of_space_toml() -> None:
    assert parse_space(SPACE).race.enabled and parse_space(SPACE).race.max_speedup is None
    off = parse_space(SPACE + "[race]\nenabled = false\nmax_speedup = 12.5\n").race
    assert (off.enabled, off.max_speedup) == (False, 12.5)
    with pytest.raises(ConfigError, match=r"race\.max_speedup"):
        parse_space(SPACE + "[race]\nmax_speedup = 0\n")
    with pytest.raises(ConfigError, match=r"race\.alpha: Extra inputs are not permitted"):
        parse_space(SPACE + "[race]\nalpha = 0.1\n")


def test_the_seat_races_a_latency_config_only_with_an_incumbent() -> None:
    spec = load_profile().require_latency()
    cfg = latency_config("http://127.0.0.1:1", spec.buckets[:2], runs=30, mode="strict")
    seat = RaceSeat(Race(max_speedup=9.0), incumbent=4.0)
    raced = seat.configure(cfg)
    assert seat.racer is not None and raced.stop_rule is seat.racer
    assert seat.racer.mode == "strict" and seat.racer.incumbent == 4.0
    assert seat.racer.spec == RaceSpec(
        buckets=(
            (spec.buckets[0].name, spec.buckets[0].baseline_ms),
            (spec.buckets[1].name, spec.buckets[1].baseline_ms),
        ),
        cap=30,
        max_speedup=9.0,
    )
    assert RaceSeat(Race(), incumbent=None).configure(cfg) is cfg  # the first trial: no race
    assert RaceSeat(Race(enabled=False), incumbent=4.0).configure(cfg) is cfg
    assert RaceSeat(Race(), incumbent=4.0).configure("a throughput config") == "a throughput config"
