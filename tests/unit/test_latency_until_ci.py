"""--until-ci's records, flag, report schema and gate line, from literal rows."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.gate.report import Verdict
from harness.gate.rules import judge
from harness.latency.analysis import build_report
from harness.latency.report import LatencyReport, RequestRow
from harness.latency.state import LatencyState
from harness.latency.until_ci import Stopper, until_ci_flag, until_ci_record
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.report_base import load_report
from harness.risk import FlagKind
from tests.fixtures.configs import latency_config
from tests.unit.test_gate_rules import inputs

SPEC = load_profile("efficient-qwen").require_latency()


def rows(values: list[float | None], bucket: str = "short", warmup: int = 0) -> list[RequestRow]:
    """Timed rows in order; None is a failed request."""
    out = [
        RequestRow(bucket=bucket, mode="official", phase="warmup", index=i, ok=True, e2e_ms=1.0)
        for i in range(warmup)
    ]
    for i, v in enumerate(values):
        out.append(
            RequestRow(
                bucket=bucket,
                mode="official",
                phase="timed",
                index=i,
                ok=v is not None,
                e2e_ms=v,
                error_kind=None if v is not None else "http_500",
            )
        )
    return out


STEADY = [1000.0 + d for d in (0, 3, -2, 1, -1, 2, -3, 4, -4, 0.5)]  # 10 runs within ±0.4 %


def test_stopper_stops_at_the_first_narrow_look():
    stop = Stopper(1.0, 50)
    for v in STEADY[:9]:
        assert not stop.add(True, v).narrow  # below the floor: no interval
    assert stop.last is not None and stop.last.lo is None
    lk = stop.add(True, STEADY[9])
    assert lk.narrow and (lk.lo, lk.hi) == (996.0, 1004.0) and stop.stop_now()
    # failures add nothing
    other = Stopper(1.0, 50)
    assert other.add(False, None).n == 0


def test_record_narrow_cap_and_interrupted():
    rec = until_ci_record(rows(STEADY, warmup=5), 1.0, 50)
    assert (rec.stopped, rec.runs_used, rec.runs_cap, rec.n_ok) == ("narrow", 10, 50, 10)
    assert rec.interval_ms == (996.0, 1004.0) and rec.stopped_early
    assert rec.half_width_pct == pytest.approx(4.25 / 1000.25 * 100)
    assert rec.why.startswith("stopped after 10 of 50 runs")
    assert (rec.floor, rec.alpha) == (10, 0.05) and rec.miss_probability <= 0.045

    wide = [1000.0 + 50 * ((i * 7) % 11) for i in range(50)]  # ±25 %: never narrow
    rec = until_ci_record(rows(wide), 1.0, 50)
    assert (rec.stopped, rec.runs_used, rec.stopped_early) == ("cap", 50, False)
    assert rec.interval_ms is not None and rec.why.startswith("ran all 50 runs")

    rec = until_ci_record(rows(wide[:7]), 1.0, 50)
    assert (rec.stopped, rec.runs_used, rec.interval_ms) == ("interrupted", 7, None)

    # narrow only at the cap: it ran the grader's count, so it is not an early stop
    rec = until_ci_record(rows(STEADY), 1.0, 10)
    assert (rec.stopped, rec.runs_used, rec.stopped_early) == ("narrow", 10, False)


def test_failures_count_as_runs_not_as_samples():
    rec = until_ci_record(rows([*STEADY[:5], None, *STEADY[5:]]), 1.0, 50)
    assert (rec.runs_used, rec.n_ok, rec.stopped) == (11, 10, "narrow")
    empty = until_ci_record([], 1.0, 50)
    assert (empty.runs_used, empty.n_ok, empty.interval_ms, empty.stopped) == (
        0,
        0,
        None,
        "interrupted",
    )


def _report(values: dict[str, list[float | None]], until_ci: float | None) -> LatencyReport:
    cfg = latency_config("http://x", tuple(SPEC.buckets), until_ci=until_ci, calibrate=False)
    state = LatencyState(rows=[r for name, v in values.items() for r in rows(v, name, warmup=5)])
    return build_report(cfg, state, Provenance(), complete=True)


def test_an_early_stop_is_flagged_as_an_estimate_and_the_gate_says_so():
    full = [1000.0 + (i % 5) for i in range(50)]
    rep = _report({"short": STEADY, "medium": full, "long": STEADY}, 1.0)
    recs = {b.name: b.until_ci for b in rep.official}
    assert recs["short"] is not None and recs["short"].stopped_early
    assert recs["medium"] is not None and recs["medium"].runs_used == 50
    assert rep.settings["until_ci"] == 1.0 and rep.settings["official_procedure"] is False
    flags = [f for f in rep.flags if f.kind is FlagKind.ESTIMATE]
    assert [f.text.split(" is an estimate")[0] for f in flags] == [
        "official short",
        "official long",
    ]
    assert "after 10 of 50 runs" in flags[0].text and "re-run without --until-ci" in flags[0].text
    assert until_ci_flag(rep.official) == flags
    assert not [f for f in rep.flags if f.kind is FlagKind.NON_OFFICIAL]

    verdict, _, gate_flags = judge(inputs(latency=rep))
    assert verdict is Verdict.PASS
    # said once, as an estimate (the runs, warm-ups and buckets are the profile's)
    assert [f.text for f in gate_flags if f.kind is FlagKind.ESTIMATE] == [
        "latency: " + f.text for f in flags
    ]
    assert not [f for f in gate_flags if f.kind is FlagKind.NON_OFFICIAL]
    assert judge(inputs(latency=rep), strict=True)[0] is Verdict.FAIL


def test_every_run_made_is_the_graders_procedure_and_no_flag():
    full = [1000.0 + 30 * (i % 5) for i in range(50)]
    rep = _report({"short": full, "medium": full, "long": full}, 1.0)
    assert all(b.until_ci is not None and b.until_ci.stopped == "cap" for b in rep.official)
    assert rep.settings["official_procedure"] is True
    assert not [f for f in rep.flags if f.kind in (FlagKind.ESTIMATE, FlagKind.NON_OFFICIAL)]
    plain = _report({"short": full, "medium": full, "long": full}, None)
    assert plain.settings["until_ci"] is None
    assert all(b.until_ci is None for b in plain.official)


def test_config_refuses_nonsense():
    with pytest.raises(ConfigError, match="positive percentage"):
        latency_config("http://x", (), until_ci=0.0)
    with pytest.raises(ConfigError, match="one at a time"):
        latency_config("http://x", (), mode="strict", concurrency=4, until_ci=1.0)
    # official mode never uses --concurrency: accepted
    latency_config("http://x", (), mode="official", concurrency=4, until_ci=1.0)


LATENCY_V2 = {
    "kind": "latency",
    "schema_version": 2,
    "complete": True,
    "provenance": {"harness_version": "0.2.0"},
    "mode": "official",
    "settings": {"runs": 50, "warmup": 5, "buckets": ["short"], "official_procedure": True},
    "official": [
        {
            "name": "short",
            "mode": "official",
            "endpoint": "/invocations",
            "prompt_tokens_nominal": 64,
            "prompt_tokens": 61,
            "max_tokens": 128,
            "baseline_ms": 2582.0,
            "n_ok": 50,
            "n_failed": 0,
            "median_ms": 1291.0,
            "speedup": 2.0,
        }
    ],
    "flags": [],
}


def test_schema_2_and_3_reports_read_as_schema_4_without_until_ci(tmp_path: Path):
    for version in (2, 3):
        (tmp_path / "latency.json").write_text(
            json.dumps({**LATENCY_V2, "schema_version": version}), encoding="utf-8"
        )
        rep = load_report(tmp_path, LatencyReport)
        assert rep is not None and rep.schema_version == LatencyReport.SCHEMA_VERSION == 4
        assert rep.official[0].until_ci is None and rep.official[0].median_ms == 1291.0
        assert rep.usage_checks == [] and rep.notes == []


def test_a_report_with_records_reads_back_unchanged(tmp_path: Path):
    rep = _report({"short": STEADY, "medium": STEADY, "long": STEADY}, 2.0)
    rep.save(tmp_path)
    back = load_report(tmp_path, LatencyReport)
    assert back is not None and back.official[0].until_ci == rep.official[0].until_ci


def test_the_recorded_command_lines_carry_until_ci(tmp_path: Path):
    from harness.cli.kind_command import kind_config
    from harness.gate.options import options_from_args
    from harness.gate.orchestrate import GatePlan
    from harness.latency.config import LatencyOverrides, from_profile
    from harness.latency.kind import KIND
    from harness.target import Target
    from tests.unit.test_cores import ctx, reparse

    profile = load_profile()
    target = Target(folder=tmp_path, url="http://127.0.0.1:9")
    overrides = LatencyOverrides(until_ci=1.5, calibrate=False)
    cfg = from_profile(profile, target, overrides)
    argv = KIND.command_line(target, overrides, "efficient-qwen")
    assert argv[-2:] == ["--until-ci", "1.5"]
    # each build draws its own strict-prompt seed (not rendered back: it is in provenance)
    rebuilt = kind_config(KIND, reparse(argv), ctx(profile, tmp_path))
    assert rebuilt.seed_drawn and replace(rebuilt, seed=cfg.seed) == cfg
    plan = GatePlan(url="http://h:1", folder=tmp_path, profile=profile, options={"until_ci": 2.0})
    assert options_from_args(reparse(plan.command_line()))["until_ci"] == 2.0
    assert plan.overrides(KIND).until_ci == 2.0  # the gate's option reaches its latency step


# issue 47, item 1: every interval shown names its statistic and shows both of its sides
SKEWED = [1000.0 + (i % 10) for i in range(45)] + [1000.0, 1001.0, 3000.0, 2500.0, 1002.0]


def test_an_interval_is_shown_as_its_two_sides_never_as_one_plus_minus():
    from harness.view import fmt

    assert fmt.around(44.0, (43.252, 106.81)) == "−1.70 % / +142.75 %"
    assert fmt.around(100.0, (100.0, 101.0)) == "−0.00 % / +1.00 %"
    assert fmt.around(None, (1.0, 2.0)) == fmt.around(1.0, None) == "—"


def test_the_record_the_flag_and_the_line_name_the_percentile():
    from harness.latency.views import until_ci_lines

    rec = until_ci_record(rows(SKEWED), 1.0, 50, "p90")
    assert rec.why == (
        "ran all 50 runs: p90 1,009 ms, 95 % interval 1,007–3,000 ms (−0.20 % / +197.32 %), "
        "wider than ±1 %"
    )
    cfg = latency_config("http://x", (SPEC.buckets[0],), until_ci=50.0, until_ci_at="p90")
    early = [1000.0 + (i % 10) for i in range(40)]
    state = LatencyState(rows=rows(early, warmup=5))
    rep = build_report(cfg, state, Provenance(), complete=True)
    b = rep.official[0]
    assert b.until_ci is not None and b.until_ci.stopped_early and b.until_ci.at == "p90"
    [flag] = [f for f in rep.flags if f.kind is FlagKind.ESTIMATE]
    assert flag.text == (
        "official short is an estimate: --until-ci 50 stopped it after 40 of 50 runs at p90 "
        "1,008 ms, 95 % interval 1,007–1,009 ms (−0.11 % / +0.09 %); re-run without "
        "--until-ci for the grader's procedure"
    )
    [line] = until_ci_lines(rep).lines
    assert line.startswith("until-ci official short: stopped after 40 of 50 runs: p90 1,008 ms")
    # a report written before the sentence named its statistic reads as a new one
    old = b.until_ci.model_copy(update={"why": "stopped after 40 of 50 runs: ±0.09 %"})
    rep.official[0] = b.model_copy(update={"until_ci": old})
    assert until_ci_lines(rep).lines == (line,)


def test_the_table_shows_the_percentile_the_run_stopped_on():
    from harness.latency.views import bucket_table

    cfg = latency_config("http://x", (SPEC.buckets[0],), until_ci=50.0, until_ci_at="p90")
    rep = build_report(cfg, LatencyState(rows=rows(SKEWED)), Provenance(), complete=True)
    tab = bucket_table("official", rep.official)
    cells = {c.header: cell.text for c, cell in zip(tab.columns, tab.rows[0].cells, strict=True)}
    assert cells["e2e p90"] == "1,009†"  # 50 samples: short of the p90's claim, marked
    lo, hi = rep.official[0].median_ci95 or (0.0, 0.0)  # the median's own bootstrap interval
    assert cells["median ms (95% CI)"] == f"1,004 ({lo:,.0f}–{hi:,.0f})"
    plain = bucket_table("official", _report({"short": STEADY}, 1.0).official)
    assert not [c for c in plain.columns if c.header.startswith("e2e ")]


def test_the_progress_line_names_the_statistic_and_both_sides():
    from harness.latency.console import look_words
    from harness.stats.median_sequence import MIN_RUNS

    stop = Stopper(1.0, 50, "p90")
    for v in SKEWED[:40]:
        lk = stop.add(True, v)
    assert look_words(lk, 1.0) == "p90 1,008 ms, CI −0.11 % / +0.09 % (target ±1 %)"
    first = Stopper(1.0, 50, "p90").add(True, 1000.0)
    assert look_words(first, 1.0) == "p90 1,000 ms, CI — (target ±1 %)"
    median = Stopper(5.0, 50)
    for v in STEADY[:MIN_RUNS]:
        lk = median.add(True, v)
    assert look_words(lk, 5.0) == "median 1,000 ms, CI −0.42 % / +0.37 % (target ±5 %)"


def test_a_stop_rule_that_could_never_stop_is_refused_before_anything_is_sent():
    with pytest.raises(ConfigError, match=r"first look at 10 successful runs and --runs 5"):
        latency_config("http://x", (), runs=5, until_ci=5.0)
    latency_config("http://x", (), runs=10, until_ci=5.0)  # the floor itself: one look
    latency_config("http://x", (), runs=5)  # without --until-ci: any run count
