"""Racing on a tail SLO (harness/tune/trial/tail_race.py) on literal samples: a trial is stopped
when its samples can no longer show the SLO met, or when the one-sided anytime-valid
bound of the percentile is above the SLO's; never while it could still meet it. That a
trial meeting its SLO is stopped at most alpha of the time is the bench's
(bench/tail_race.py): a rate needs many simulated trials, not a unit test. Also
``[options] until_ci_at``, checked before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.latency.report import RequestRow
from harness.profiles import load_profile
from harness.stats.quantile_sequence import fixed_ranks, lower_boundary, lower_rank
from harness.tune.space import Race, parse_space
from harness.tune.space.slo import Slo
from harness.tune.trial.race import RaceSpec
from harness.tune.trial.racing import FirstStop, Racer, RaceSeat
from harness.tune.trial.refuse import preflight
from harness.tune.trial.tail_race import TailRace, TailWatch, tail_look, tail_watches
from tests.fixtures.configs import latency_config
from tests.fixtures.tune_profiles import speed_only

P90 = TailWatch(
    slo=0,
    text="p90_ttft_ms ≤ 80 in short",
    bucket="short",
    mode="strict",
    field="ttft_ms",
    p=0.9,
    limit=80.0,
)


def _row(mode: str, bucket: str, ttft: float | None, ok: bool = True) -> RequestRow:
    return RequestRow(
        bucket=bucket, mode=mode, phase="timed", index=0, ok=ok, ttft_ms=ttft, e2e_ms=ttft
    )


def test_the_lower_sequence_spends_its_whole_budget_on_one_side() -> None:
    seq = lower_boundary(200, 0.9, 10, 0.05, 0.045)
    assert seq.miss <= 0.045 and seq.rank(9) == 0  # no look under the floor
    assert [seq.rank(n) for n in (10, 20, 50, 100, 200)] == [6, 14, 39, 82, 169]
    # the two-sided sequence's lower end at level a is the one-sided rank at a / 2
    for n in (10, 37, 100):
        assert fixed_ranks(n, 0.5, 0.02)[0] == lower_rank(n, 0.5, 0.01)
    assert lower_rank(0, 0.9, 0.05) == 0


def test_a_certainly_broken_tail_is_stopped_saying_its_bound() -> None:
    seq = lower_boundary(200, 0.9, 10, 0.05, 0.045)
    xs = [10.0, 20.0, 30.0, 100.0, 110.0, 120.0, 130.0, 140.0, 150.0, 160.0]
    look = tail_look(P90, xs, 200, seq)  # rank 6 at n = 10: the 6th smallest, 120 ms
    assert (look.n, look.over, look.lower, look.stop) == (10, 7, 120.0, True)
    assert look.why == (
        "slo[0] p90_ttft_ms ≤ 80 in short: broken: p90 ≥ 120.0 ms > 80 ms at 95 % "
        "(anytime-valid lower bound from 10 samples, after 10 of 200 runs in short)"
    )


def test_a_tail_it_could_still_meet_never_stops_it() -> None:
    seq = lower_boundary(200, 0.9, 10, 0.05, 0.045)
    # 5 of 10 over 80 ms: the 6th smallest (75 ms) is under the bound, and 200 runs
    # allow 10 over: both ways to meet it are open
    xs = [10.0, 20.0, 30.0, 40.0, 50.0, 75.0, 90.0, 91.0, 92.0, 93.0]
    look = tail_look(P90, xs, 200, seq)
    assert (look.lower, look.over, look.stop, look.why) == (75.0, 4, False, "")
    # under the floor there is no bound at all, however high the samples
    high = tail_look(P90, [500.0] * 9, 200, seq)
    assert (high.over, high.lower, high.stop) == (9, None, False)


def test_a_run_that_can_no_longer_show_it_met_is_stopped_at_once() -> None:
    # 50 runs may hold no sample over a p90 bound (harness/stats/tails.py): the first one over
    # decides the end-of-run check, so the run stops there, before the floor of 10
    seq = lower_boundary(50, 0.9, 10, 0.05, 0.045)
    look = tail_look(P90, [10.0, 12.0, 95.0], 50, seq)
    assert look.stop and look.lower is None
    assert look.why == (
        "slo[0] p90_ttft_ms ≤ 80 in short: cannot be shown met: 1 of 3 samples over 80 ms, "
        "and 50 runs may hold at most 0 to show it at 99% (after 3 of 50 runs in short)"
    )
    assert not tail_look(P90, [10.0, 12.0, 80.0], 50, seq).stop  # at the bound is under it


def test_the_race_feeds_each_watch_its_own_mode_and_bucket() -> None:
    race = TailRace([P90], cap=200)
    assert race.seqs[0.9].alpha == pytest.approx(0.05)  # one watch: the whole alpha
    assert race.after(_row("official", "short", 500.0)) is None  # not the strict mode
    assert race.after(_row("strict", "long", 500.0)) is None  # another bucket
    assert race.after(_row("strict", "short", None, ok=False)) is None  # a failure
    for ms in (10.0, 20.0, 30.0, 100.0, 110.0, 120.0, 130.0, 140.0, 150.0):
        assert race.after(_row("strict", "short", ms)) is None
    assert race.stopped is None and race.values == [[10.0, 20.0, 30.0, *range(100, 160, 10)]]
    why = race.after(_row("strict", "short", 160.0))
    assert why is not None and why.startswith("slo[0] p90_ttft_ms ≤ 80 in short: broken: p90")
    assert race.stopped == why
    two = TailRace([P90, P90], cap=200)  # two checks: alpha / 2 each
    assert two.seqs[0.9].alpha == pytest.approx(0.025)


def test_the_watches_are_the_tail_maxima_of_the_measured_buckets() -> None:
    spec = load_profile().require_latency()
    cfg = latency_config("http://127.0.0.1:1", spec.buckets[:2], runs=60, mode="both")
    short, medium = spec.buckets[0].name, spec.buckets[1].name
    slos = [
        Slo(metric="p90_ttft_ms", bucket=short, max=80),
        Slo(metric="median_e2e_ms", max=900),  # not a tail
        Slo(metric="p95_itl_ms", max=9),  # ITL: not raced
        Slo(metric="p90_e2e_ms", max="baseline", slack_pct=10),  # no baseline measured yet
        Slo(metric="p99_tpot_ms", max=20),  # every measured bucket
    ]
    got = [(w.slo, w.bucket, w.mode, w.field, w.p, w.limit) for w in tail_watches(slos, cfg, None)]
    assert got == [
        (0, short, "strict", "ttft_ms", 0.9, 80.0),
        (4, short, "strict", "tpot_ms", 0.99, 20.0),
        (4, medium, "strict", "tpot_ms", 0.99, 20.0),
    ]
    official = latency_config("http://127.0.0.1:1", spec.buckets[:1], runs=60, mode="official")
    e2e = tail_watches([Slo(metric="p90_e2e_ms", max=500)], official, None)
    assert [(w.mode, w.field) for w in e2e] == [("official", "e2e_ms")]


def test_the_seat_races_tails_with_or_without_an_incumbent(tmp_path: Path) -> None:
    spec = load_profile().require_latency()
    cfg = latency_config("http://127.0.0.1:1", spec.buckets[:1], runs=60, mode="strict")
    slos = [Slo(metric="p90_ttft_ms", max=80)]
    alone = RaceSeat(Race(), None, slos)
    assert isinstance(alone.configure(cfg).stop_rule, TailRace) and alone.racer is None
    both = RaceSeat(Race(), 5.0, slos)
    rule = both.configure(cfg).stop_rule
    assert isinstance(rule, FirstStop) and isinstance(both.racer, Racer)
    assert RaceSeat(Race(enabled=False), 5.0, slos).configure(cfg).stop_rule is None
    # the baseline trial, the reference of "baseline" bounds, is measured in full
    base = RaceSeat(Race(), None, slos, reference=tmp_path, folder=tmp_path)
    assert base.configure(cfg).stop_rule is None and base.slo_stopped is None


def test_the_first_reason_stops_the_run_and_every_rule_sees_every_row() -> None:
    tails = TailRace([P90], cap=50)
    racer = Racer(RaceSpec(buckets=(("short", 1000.0),), cap=50), incumbent=1e9, mode="strict")
    both = FirstStop([tails, racer])
    assert both.after(_row("strict", "short", 10.0)) is None
    why = both.after(_row("strict", "short", 95.0))  # over the bound: the tail's reason
    assert why is not None and why.startswith("slo[0] p90_ttft_ms ≤ 80 in short: cannot")
    assert racer.values["short"] == [10.0, 95.0] and tails.stopped == why


SPACE = """
[serve]
command = "srv --port {port} --n {n}"
[params]
n = [1, 2]
[options]
"""


def _preflight(text: str, folder: Path) -> None:
    """The tune's preflight of ``text`` under efficient-qwen's speed steps (check, latency)."""
    preflight(parse_space(text), load_profile(str(speed_only(folder))), folder)


def test_until_ci_at_names_a_percentile_and_is_checked_up_front(tmp_path: Path) -> None:
    opts = parse_space(SPACE + "until_ci = 5\nuntil_ci_at = 'p90'\nruns = 50\n").options
    assert opts.gate()["until_ci_at"] == "p90" and opts.gate()["until_ci"] == 5
    # a p90 has intervals within 50 runs
    _preflight(SPACE + "until_ci = 5\nuntil_ci_at = 'p90'\nruns = 50\n", tmp_path)
    with pytest.raises(ConfigError, match=r"options: until_ci_at = 'p90' names what until_ci"):
        parse_space(SPACE + "until_ci_at = 'p90'\n")
    with pytest.raises(ConfigError, match=r"options\.until_ci_at: Input should be"):
        parse_space(SPACE + "until_ci = 5\nuntil_ci_at = 'p50'\n")
    with pytest.raises(ConfigError) as err:  # the profile's 50 runs: the latency config's
        _preflight(SPACE + "until_ci = 5\nuntil_ci_at = 'p99'\n", tmp_path)
    assert err.value.one_line() == (
        "SPACE.toml: options.until_ci_at: no 95 % interval of a p99 exists within 50 runs, "
        "so until_ci could never stop a bucket early — stop on the median or a lower "
        "percentile, or raise options.runs (a p90 has its first interval at about 37 runs, "
        "a p95 at 92, a p99 at 461)"
    )


def test_until_ci_with_runs_below_its_first_look_is_refused_up_front(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        _preflight(SPACE + "until_ci = 5\nruns = 5\n", tmp_path)
    assert err.value.one_line() == (
        "SPACE.toml: options.until_ci makes its first look at 10 successful runs and runs = 5 "
        "ends before it, so it could never stop a bucket early — raise options.runs to 10 or "
        "more, or drop options.until_ci"
    )
    _preflight(SPACE + "until_ci = 5\nruns = 10\n", tmp_path)
