"""``harness latency --until-ci`` against the built-in simulator: where it stops, what it records."""

from __future__ import annotations

import math
import statistics

import pytest

from harness.cli import main
from harness.errors import EXIT_USAGE
from harness.latency.analysis import build_report
from harness.latency.config import LatencyConfig
from harness.latency.report import LatencyReport
from harness.latency.runner import LatencyState, run_latency
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.report_base import load_report
from harness.risk import FlagKind
from harness.simulate.config import make_config
from harness.simulate.engine import Engine
from harness.tokenizer import load_tokenizer
from tests.fixtures.configs import latency_config

pytestmark = pytest.mark.timeout(180)

SPEC = load_profile().require_latency()
TOK = load_tokenizer("qwen:Qwen/Qwen3.5-4B")
SHORT = SPEC.buckets[0].model_copy(update={"max_tokens": 8})


def cfg_for(url: str, **kw) -> LatencyConfig:
    base: dict[str, object] = dict(runs=30, warmup=1, calibrate=False, timeout_s=10.0)
    base.update(kw)
    return latency_config(url, (SHORT,), **base)


def generation_requests(sim, path: str) -> int:
    log = sim.fetch_log() if hasattr(sim, "fetch_log") else sim.log
    return sum(1 for e in log if e.path == path)


async def test_a_steady_server_stops_early_with_its_record_and_flag(simulator):
    # ~235 ms a request, exact timing: the loaded machine's own noise is far below ±10 %
    sim = await simulator(ttft_ms=200, itl_ms=5)
    cfg = cfg_for(sim.url, until_ci=10.0)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    rec = rep.official[0].until_ci
    assert rec is not None and rec.stopped == "narrow" and rec.stopped_early
    assert 10 <= rec.runs_used < 30 and rec.runs_cap == 30 and rec.pct == 10.0
    # exactly the requests the record says: warm-up + runs used, nothing after the stop
    assert generation_requests(sim, "/invocations") == 1 + rec.runs_used
    assert rep.official[0].n_ok == rec.n_ok == rec.runs_used
    lo, hi = rec.interval_ms or (0.0, 0.0)
    med = rep.official[0].median_ms
    assert med is not None and lo <= med <= hi
    assert rec.half_width_pct is not None and rec.half_width_pct <= 10.0
    assert max(med - lo, hi - med) / med * 100 == pytest.approx(rec.half_width_pct)
    assert rep.settings["official_procedure"] is False
    # an estimate, and 30 runs / 1 warm-up are not the grader's 50 / 5 either
    assert [f.kind for f in rep.flags] == [FlagKind.ESTIMATE, FlagKind.NON_OFFICIAL]


async def test_a_noisy_server_runs_to_the_cap(simulator):
    # 30 % lognormal jitter per request: no ±1 % interval is possible in 15 runs
    sim = await simulator(ttft_ms=20, itl_ms=2, jitter_pct=30)
    cfg = cfg_for(sim.url, until_ci=1.0, runs=15)
    state = LatencyState()
    looks = []
    await run_latency(cfg, TOK, state, on_look=lambda row, lk, pct: looks.append((lk, pct)))
    rep = build_report(cfg, state, Provenance(), complete=True)
    rec = rep.official[0].until_ci
    assert rec is not None and rec.stopped == "cap" and not rec.stopped_early
    assert rec.runs_used == 15 and generation_requests(sim, "/invocations") == 1 + 15
    assert rec.half_width_pct is not None and rec.half_width_pct > 1.0
    # one look per timed request, the interval only from the floor on
    assert [lk.n for lk, _ in looks] == list(range(1, 16))
    assert all(lk.lo is None for lk, _ in looks[:9]) and looks[-1][0].lo is not None
    assert {pct for _, pct in looks} == {1.0}
    # no estimate: every run was made (15 runs / 1 warm-up is the one departure, flagged)
    assert [f.kind for f in rep.flags] == [FlagKind.NON_OFFICIAL]


async def test_strict_and_both_stop_each_bucket_on_its_own_values(simulator):
    sim = await simulator(ttft_ms=200, itl_ms=5)
    cfg = cfg_for(sim.url, mode="both", until_ci=10.0)
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    for b, path in ((rep.official[0], "/invocations"), (rep.strict[0], "/v1/completions")):
        rec = b.until_ci
        assert rec is not None and rec.stopped == "narrow" and rec.runs_used < 30
        assert generation_requests(sim, path) == 1 + rec.runs_used
        # the record's interval is made of the very values the report's median is
        timed = sorted(
            r.e2e_ms
            for r in state.rows
            if r.mode == b.mode and r.phase == "timed" and r.ok and r.e2e_ms is not None
        )
        assert len(timed) == rec.n_ok and b.median_ms == statistics.median(timed)
        assert rec.interval_ms is not None and set(rec.interval_ms) <= set(timed)
    estimates = [f.text for f in rep.flags if f.kind is FlagKind.ESTIMATE]
    assert [t.split(" is an estimate")[0] for t in estimates] == ["official short", "strict short"]


def test_the_cli_saves_the_record(sim_process, tmp_path):
    sim = sim_process(ttft_ms=200, itl_ms=0.5)  # the short bucket's 128 tokens: ~265 ms
    out = tmp_path / "run"
    argv = ["latency", "--url", sim.url, "--buckets", "short", "--runs", "30", "--warmup", "1"]
    rc = main([*argv, "--until-ci", "10", "--no-calibrate", "--out", str(out), "--quiet"])
    assert rc == 0
    rep = load_report(out, LatencyReport)
    assert rep is not None and rep.settings["until_ci"] == 10.0
    rec = rep.official[0].until_ci
    assert rec is not None and rec.stopped == "narrow"
    assert rec.runs_used == generation_requests(sim, "/invocations") - 1
    assert "--until-ci" in rep.provenance.command_line


def test_bad_until_ci_is_a_usage_error(capsys):
    url = "http://127.0.0.1:9"
    with pytest.raises(SystemExit) as exited:  # argparse's own refusal
        main(["latency", "--url", url, "--until-ci", "0", "--quiet"])
    assert exited.value.code == EXIT_USAGE
    assert "--until-ci: '0' must be > 0" in capsys.readouterr().err
    argv = ["latency", "--url", url, "--mode", "strict", "--concurrency", "4"]
    assert main([*argv, "--until-ci", "1", "--quiet"]) == EXIT_USAGE
    assert "one at a time" in capsys.readouterr().err


def test_simulator_jitter_is_seeded_lognormal_with_median_one():
    exact = Engine(make_config(), TOK)
    assert [exact.jitter() for _ in range(3)] == [1.0, 1.0, 1.0]
    a = Engine(make_config(jitter_pct=5, seed=7), TOK)
    b = Engine(make_config(jitter_pct=5, seed=7), TOK)
    xs = [a.jitter() for _ in range(4000)]
    assert xs[:20] == [b.jitter() for _ in range(20)]  # the same per seed, in order
    logs = [math.log(x) for x in xs]
    assert statistics.median(xs) == pytest.approx(1.0, abs=0.01)
    assert statistics.stdev(logs) == pytest.approx(0.05, rel=0.1)


async def test_repeats_keep_each_record_and_flag_the_pool(simulator, tmp_path):
    from harness.latency.core import measure_latency_repeats

    sim = await simulator(ttft_ms=200, itl_ms=5)
    cfg = cfg_for(sim.url, until_ci=10.0, ready_interval_s=0.1)
    pooled, _ = await measure_latency_repeats(
        cfg, 2, provenance=Provenance(), folder=tmp_path, tokenizer=TOK
    )
    used = []
    for i in (1, 2):
        rep = LatencyReport.load(tmp_path / f"repeat-{i}")
        rec = rep.official[0].until_ci
        assert rec is not None and rec.stopped == "narrow"
        used.append(rec.runs_used)
    assert pooled.official[0].until_ci is None  # a pool is not one sequence
    assert pooled.official[0].n_ok == sum(used)
    assert pooled.settings["official_procedure"] is False
    # each repeat's stop, once, marked with its repeat
    carried = [f for f in pooled.flags if f.kind is not FlagKind.NON_OFFICIAL]
    assert [f.kind for f in carried] == [FlagKind.ESTIMATE, FlagKind.ESTIMATE]
    assert [f.text[:9] for f in carried] == ["repeat 1:", "repeat 2:"]


async def test_until_ci_at_the_p90_stops_on_its_own_interval(simulator):
    sim = await simulator(ttft_ms=200, itl_ms=5)
    # the p90's interval reaches up to the largest sample: a loose target, ±50 %
    cfg = cfg_for(sim.url, runs=50, until_ci=50.0, until_ci_at="p90")
    state = LatencyState()
    await run_latency(cfg, TOK, state)
    rep = build_report(cfg, state, Provenance(), complete=True)
    rec = rep.official[0].until_ci
    assert rec is not None and rec.at == "p90" and rec.stopped == "narrow"
    assert 37 <= rec.runs_used < 50  # no interval of a p90 before 37 successes
    assert generation_requests(sim, "/invocations") == 1 + rec.runs_used
    lo, hi = rec.interval_ms or (0.0, 0.0)
    p90 = rep.official[0].e2e.p90
    assert p90 is not None and lo <= p90 <= hi
    assert rep.settings["until_ci_at"] == "p90"
    [flag] = [f for f in rep.flags if f.kind is FlagKind.ESTIMATE]
    assert " runs at p90 " in flag.text and ", 95 % interval " in flag.text


def test_a_p99_that_cannot_stop_within_the_runs_is_a_usage_error(capsys):
    argv = ["latency", "--url", "http://127.0.0.1:9", "--until-ci", "5", "--until-ci-at", "p99"]
    assert main([*argv, "--quiet"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "--until-ci-at p99: no 95 % interval of a p99 exists within 50 runs" in err


def test_the_console_names_the_percentile_it_stops_on(sim_process, tmp_path):
    """Issue 47, item 1, as the user ran it: ``--until-ci-at p90`` is said as the p90's
    interval on the end line, in the flag and in the table, both sides, never ``±`` alone."""
    from tests.fixtures.wrong_invocation import run_harness

    sim = sim_process(ttft_ms=20, itl_ms=0.1)
    argv = ["latency", "--url", sim.url, "--mode", "strict", "--buckets", "short"]
    argv += ["--runs", "50", "--warmup", "1", "--seed", "5", "--no-calibrate"]
    argv += ["--until-ci", "50", "--until-ci-at", "p90", "--out", str(tmp_path / "run")]
    said = run_harness(argv, reports=tmp_path / "reports", env={"COLUMNS": "250"})
    assert said.rc == 0, said.stderr
    out = " ".join(said.stdout.split())  # lines a narrow console wraps, joined
    assert "e2e p90" in out  # the figure the interval is of, in the table
    # whether ±50 % is reached before 50 runs depends on the machine's load: either end
    # line names the p90 and its interval, both sides
    stopped = "until-ci strict short: stopped after" in out
    assert stopped or "until-ci strict short: ran all 50 runs" in out, out
    assert " runs: p90 " in out and "95 % interval" in out
    assert not stopped or "is an estimate: --until-ci 50 stopped it after" in out
    interval = out.split("95 % interval ", 1)[1].split(")", 1)[0]
    assert " (−" in interval and " % / +" in interval, interval
    # the target's width may follow ("within ±50 %", "wider than ±50 %"), never the figure's
    end = out.split("until-ci strict short:", 1)[1].split("within", 1)[0]
    assert "±" not in end.split("wider than", 1)[0]
