"""SLOs of SPACE.toml (harness/tune/space/slo.py, trial/slo_check.py, slo_step.py): parsing, the checks on a literal
latency report, "baseline" bounds, and what is refused before anything starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import ConfigError
from harness.gate.orchestrate import StepConfigs
from harness.latency.report import BucketResult, Dist, LatencyReport, RequestRow
from harness.profiles import load_profile
from harness.stats.summary import dist
from harness.tune.record.outcome import after_speed
from harness.tune.space import parse_space
from harness.tune.space.slo import METRICS, Slo
from harness.tune.trial import slo_step
from harness.tune.trial.refuse import preflight
from harness.tune.trial.slo_check import check_slos, failed_why, metric_value
from tests.fixtures.tune_profiles import speed_only

BASE = """
[serve]
command = "x --port {port} {n}"
[params]
n = [1, 2]
[baseline]
n = 1
"""


def _bucket(name: str, mode: str, median: float, baseline_ms: float, **dists: Dist) -> BucketResult:
    return BucketResult(
        name=name,
        mode=mode,  # type: ignore[arg-type]
        endpoint="/v1/completions",
        prompt_tokens_nominal=100,
        prompt_tokens=100,
        max_tokens=16,
        baseline_ms=baseline_ms,
        n_ok=10,
        n_failed=0,
        median_ms=median,
        speedup=baseline_ms / median,
        e2e=Dist(n=10, median=median, p50=median, p99=median * 1.5, mean=median),
        **dists,
    )


def _report(short_ms: float, long_ms: float, long_p99_ttft: float) -> LatencyReport:
    ttft = Dist(n=10, median=long_p99_ttft / 2, p99=long_p99_ttft, p90=long_p99_ttft * 0.8)
    return LatencyReport(
        mode="both",
        official=[
            _bucket("short", "official", short_ms, 1000.0),
            _bucket("long", "official", long_ms, 4000.0),
        ],
        strict=[
            _bucket("short", "strict", short_ms + 5, 1000.0, ttft=Dist(n=10, p99=50.0)),
            _bucket("long", "strict", long_ms + 5, 4000.0, ttft=ttft),
        ],
    )


def test_slo_entries_parse() -> None:
    text = BASE + (
        '[[slo]]\nmetric = "p99_ttft_ms"\nbucket = "long"\nmax = 800\n'
        '[[slo]]\nmetric = "median_e2e_ms"\nmax = "baseline"\nslack_pct = 2\n'
        '[[slo]]\nmetric = "speedup"\nmin = 1.0\n'
    )
    space = parse_space(text)
    assert [s.text() for s in space.slo] == [
        "p99_ttft_ms ≤ 800 in long",
        "median_e2e_ms ≤ the baseline's +2 % in every bucket",
        "speedup ≥ 1 in every bucket",
    ]
    assert space.slo[0].streamed and not space.slo[1].streamed
    assert "p99_ttft_ms" in METRICS and "median_itl_ms" in METRICS


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ('metric = "p99_ttf_ms"\nmax = 1', "slo.0.metric: unknown metric 'p99_ttf_ms'"),
        ('metric = "p99_ttft_ms"', "slo.0: p99_ttft_ms: give max and/or min"),
        (
            'metric = "p99_ttft_ms"\nmax = "basline"',
            "slo.0.max: 'basline': a number, or \"baseline\"",
        ),
        ('metric = "p99_ttft_ms"\nmax = 1\nbukket = "long"', "slo.0.bukket: Extra inputs"),
    ],
)
def test_a_bad_slo_is_one_line_naming_it(entry: str, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_space(BASE + f"[[slo]]\n{entry}\n")
    assert err.value.exit_code == 2
    assert f"SPACE.toml: {message}" in err.value.message and "\n" not in err.value.message


def test_a_baseline_bound_needs_a_baseline() -> None:
    text = (
        BASE.replace("[baseline]\nn = 1\n", "") + '[[slo]]\nmetric = "speedup"\nmin = "baseline"\n'
    )
    with pytest.raises(ConfigError, match=r"slo\.0: a \"baseline\" bound needs a \[baseline\]"):
        parse_space(text)


def test_metric_values_come_from_the_right_mode() -> None:
    r = _report(200.0, 1000.0, 900.0)
    assert metric_value(r, "median_e2e_ms", "long") == 1000.0  # official: the scored mode
    assert metric_value(r, "p99_ttft_ms", "long") == 900.0  # streamed: the strict mode
    assert metric_value(r, "speedup", "short") == 5.0
    assert metric_value(r, "p99_itl_ms", "long") is None  # not measured
    assert metric_value(r, "p99_ttft_ms", "medium") is None


def test_checks_on_a_literal_report() -> None:
    slos = [
        Slo(metric="median_ttft_ms", bucket="long", max=400),
        Slo(metric="speedup", min=1.0),
    ]
    fast = check_slos(slos, _report(200.0, 1000.0, 700.0), None)
    assert [(c.bucket, c.ok) for c in fast] == [("long", True), ("short", True), ("long", True)]
    assert failed_why(fast) is None
    slow = check_slos(slos, _report(200.0, 5000.0, 912.4), None)
    assert [c.ok for c in slow] == [False, True, False]
    why = failed_why(slow)
    assert why == (
        "slo[0] median_ttft_ms ≤ 400 in long: measured 456.2 ms > 400.0 ms in long (and 1 more)"
    )
    assert slow[2].why == "slo[1] speedup ≥ 1 in every bucket: measured 0.800× < 1.000× in long"


def test_baseline_bounds_with_slack() -> None:
    slos = [Slo(metric="median_e2e_ms", max="baseline", slack_pct=2)]
    base = _report(200.0, 1000.0, 700.0)
    ok = check_slos(slos, _report(150.0, 1019.0, 700.0), base)  # long within +2 %
    assert all(c.ok for c in ok) and ok[1].limit == pytest.approx(1020.0)
    slower = check_slos(slos, _report(150.0, 1030.0, 700.0), base)  # short faster, long slower
    assert [c.ok for c in slower] == [True, False]
    assert "measured 1030.0 ms > 1020.0 ms in long" in (failed_why(slower) or "")
    missing = check_slos(slos, _report(150.0, 1000.0, 700.0), None)
    assert not missing[0].ok and "no baseline measurement of median_e2e_ms" in missing[0].why


def test_an_slo_failure_is_infeasible_after_a_gate_failure_and_a_lost_race() -> None:
    kw = {"bound": None, "score": 6.0, "incumbent": 5.0, "quality_next": True}
    ended = after_speed(raced=None, blocking=None, slo="slo[0] …", **kw)  # type: ignore[arg-type]
    assert ended is not None and ended.status == "slo-failed" and ended.score == 6.0
    assert not ended.status.feasible and ended.objective == 0.0
    gate = after_speed(raced=None, blocking="check failed", slo="slo[0] …", **kw)  # type: ignore[arg-type]
    assert gate is not None and gate.status == "gate-failed"
    assert after_speed(raced=None, blocking=None, slo=None, **kw) is None  # type: ignore[arg-type]


def test_check_folder_writes_slo_json(tmp_path: Path) -> None:
    trial, base = tmp_path / "t001", tmp_path / "t000"
    for folder, report in (
        (trial, _report(150.0, 1100.0, 700.0)),
        (base, _report(200.0, 1000.0, 700.0)),
    ):
        folder.mkdir()
        report.save(folder)
    slos = [Slo(metric="median_e2e_ms", max="baseline")]
    why = slo_step.check_folder(slos, trial, base)
    assert why is not None and "measured 1100.0 ms > 1000.0 ms in long" in why
    record = json.loads((trial / slo_step.SLO_JSON).read_text())
    assert record["ok"] is False and [c["ok"] for c in record["checks"]] == [True, False]
    assert slo_step.check_folder(slos, base, base) is None  # the baseline against itself
    assert (
        slo_step.check_folder(slos, tmp_path, base) == "slo: no latency report to check the SLOs on"
    )


def _preflight(text: str, folder: Path) -> StepConfigs:
    """The tune's preflight of ``text`` under efficient-qwen's speed steps (check, latency)."""
    return preflight(parse_space(text), load_profile(str(speed_only(folder))), folder)


def test_preflight_refuses_what_cannot_be_measured(tmp_path: Path) -> None:
    slo = '[[slo]]\nmetric = "p90_ttft_ms"\nbucket = "{b}"\nmax = 800\n'
    _preflight(BASE + slo.format(b="long"), tmp_path)  # 50 runs: fine
    cases = [
        (BASE + slo.format(b="huge"), "slo.0.bucket: 'huge' is not a bucket of efficient-qwen"),
        (
            BASE + '[options]\nbuckets = "short"\n' + slo.format(b="long"),
            "slo.0.bucket: long is not measured",
        ),
        (
            BASE + '[options]\nlatency_mode = "official"\n' + slo.format(b="long"),
            "slo.0.metric: p90_ttft_ms is streamed",
        ),
        (  # the grader's 50 runs can never show a p99 bound: 459 with none over
            BASE + slo.format(b="long").replace("p90", "p99"),
            "slo.0.metric: p99_ttft_ms ≤ 800 in long needs ≥ 459 samples with none over it "
            "to be shown at 99 %, and options.runs = 50 can never give that many — fewer "
            "nines (p90_ttft_ms), more runs (options.runs ≥ 459), or a median or mean SLO "
            "(median_ttft_ms)",
        ),
        (
            BASE + "[options]\nruns = 10\n" + slo.format(b="long"),
            "options.runs = 10 can never give that many — more runs (options.runs ≥ 44), or",
        ),
    ]
    for text, message in cases:
        with pytest.raises(ConfigError) as err:
            _preflight(text, tmp_path)
        assert err.value.exit_code == 2 and message in str(err.value)
    itl = BASE + "[options]\nruns = 10\n" + slo.format(b="long").replace("p90_ttft", "p99_itl")
    _preflight(itl, tmp_path)  # 10 runs of hundreds of token gaps: fine


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ('[[slo]]\nmetric = "p99_ttf_ms"\nmax = 1\n', "slo.0.metric: unknown metric 'p99_ttf_ms'"),
        ("[params.m]\nchoices = [1]\nwhen = { n = 3 }\n", "params.m.when.n: 3 is not in"),
        ("[params.m]\nchoices = [1]\nwhen = { k = 1 }\n", "params.m.when.k: not a parameter"),
    ],
)
def test_the_cli_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, named: str
) -> None:
    path = tmp_path / "space.toml"
    path.write_text(BASE.replace("[baseline]", extra + "[baseline]"))
    assert main(["tune", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"space.toml: {named}" in err
    assert not (tmp_path / "out").exists()  # nothing started, no folder


def _with_rows(ttfts: list[float]) -> LatencyReport:
    """A strict short bucket whose rows hold ``ttfts`` (the samples a tail SLO counts)."""
    rows = [
        RequestRow(
            bucket="short", mode="strict", phase="timed", index=k, ok=True, e2e_ms=900.0, ttft_ms=v
        )
        for k, v in enumerate(ttfts)
    ]
    rows.append(
        RequestRow(bucket="short", mode="strict", phase="warmup", index=0, ok=True, ttft_ms=5e3)
    )
    b = _bucket("short", "strict", 900.0, 1000.0, ttft=dist(ttfts))
    return LatencyReport(mode="strict", strict=[b], requests=rows)


def test_a_tail_slo_is_a_fixed_bound_shown_at_99_percent() -> None:
    slo = [Slo(metric="p99_ttft_ms", bucket="short", max=80)]
    # 50 runs all under the bound: the empirical p99 is 78.6, and still not shown
    [few] = check_slos(slo, _with_rows([40.0 + 39 * k / 49 for k in range(50)]), None)
    assert few.value == pytest.approx(78.61) and not few.ok and few.samples == 50
    assert few.why == (
        "slo[0] p99_ttft_ms ≤ 80 in short: p99 ≤ 80 ms needs ≥ 459 samples with none "
        "over; 50 measured in short"
    )
    # 459 under it (the warm-up's 5 s is not a sample): shown
    [met] = check_slos(slo, _with_rows([50.0] * 459), None)
    assert met.ok and (met.samples, met.over) == (459, 0)
    # 700 with 2 over: the empirical p99 is under 80, LoadGen's rule allows only 1 over
    [two] = check_slos(slo, _with_rows([50.0] * 698 + [95.0] * 2), None)
    assert two.value is not None and two.value < 80 and not two.ok and two.over == 2
    assert "not shown at 99%: 2 of 700 samples over it, at most 1 allowed" in two.why
    record = two.as_dict()
    assert (record["samples"], record["over"]) == (700, 2)


def test_an_itl_tail_is_held_to_its_estimate() -> None:
    slo = [Slo(metric="p99_itl_ms", max=12)]
    many = _bucket("short", "strict", 900.0, 1000.0, itl=dist([10.0] * 5000 + [11.0] * 40))
    [ok] = check_slos(slo, LatencyReport(mode="strict", strict=[many]), None)
    assert ok.ok and ok.samples == 5040 and ok.over is None
    few = _bucket("short", "strict", 900.0, 1000.0, itl=dist([10.0] * 100))
    [no] = check_slos(slo, LatencyReport(mode="strict", strict=[few]), None)
    assert not no.ok and "not enough samples (100 of 662 needed)" in no.why


def test_a_percentile_takes_no_min() -> None:
    with pytest.raises(ValueError, match="a percentile takes a max"):
        Slo(metric="p90_e2e_ms", min=100)
