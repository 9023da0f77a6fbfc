"""The tune's preflight (harness/tune/trial/refuse.py): the gate plan's configs built once and
returned, the settings its checks need (runs, buckets, mode) read off them, and the order
its refusals are said in. Under efficient-qwen's speed steps (check, latency): no data."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import EXIT_TARGET, EXIT_USAGE, HarnessError
from harness.gate.orchestrate import StepConfigs
from harness.latency.kind import KIND as LATENCY
from harness.profiles import load_profile
from harness.tune.space import parse_space
from harness.tune.trial.refuse import preflight
from tests.fixtures.tune_profiles import speed_only

BASE = """
[serve]
command = "x --port {port} {n}"
[params]
n = [1, 2]
[baseline]
n = 1
"""
# an image candidate whose engine is not there: its check refuses with exit 3
IMAGE = BASE.replace(
    'command = "x --port {port} {n}"',
    'image = "team/q:v1"\ndocker_host = "unix:///nonexistent/harness-test.sock"\nargs = "{n}"',
)
P90 = '[[slo]]\nmetric = "p90_ttft_ms"\nbucket = "long"\nmax = 800\n'


def _preflight(text: str, folder: Path) -> StepConfigs:
    return preflight(parse_space(text), load_profile(str(speed_only(folder))), folder)


def _refusal(text: str, folder: Path) -> HarnessError:
    with pytest.raises(HarnessError) as err:
        _preflight(text, folder)
    return err.value


def test_the_preflight_returns_the_configs_with_the_profiles_runs_or_the_options(
    tmp_path: Path,
) -> None:
    default = _preflight(BASE, tmp_path).of(LATENCY)
    assert default is not None
    assert (default.runs, default.mode) == (50, "both")  # the profile's runs, the gate's mode
    assert [b.name for b in default.buckets] == ["short", "medium", "long"]
    told = _preflight(
        BASE + '[options]\nruns = 12\nbuckets = "long"\nlatency_mode = "strict"\n', tmp_path
    ).of(LATENCY)
    assert told is not None
    assert (told.runs, [b.name for b in told.buckets], told.mode) == (12, ["long"], "strict")


def test_the_slo_checks_read_the_configs_runs(tmp_path: Path) -> None:
    """A p90 bound needs 44 samples with none over: the profile's 50 runs give them, the
    config's 12 (options.runs) do not."""
    _preflight(BASE + P90, tmp_path)
    err = _refusal(BASE + "[options]\nruns = 12\n" + P90, tmp_path)
    assert err.exit_code == EXIT_USAGE
    assert "and options.runs = 12 can never give that many" in err.one_line()


def test_the_refusals_keep_their_order(tmp_path: Path) -> None:
    """until_ci (in SPACE.toml's words), then the image's engine, then the rest of the plan
    (a bucket the profile lacks), then the SLOs: each before the later one when both are
    wrong. A bad bucket comes before until_ci, as in ``harness gate`` and ``harness latency``:
    until_ci is checked on the latency config, built from the buckets."""
    never = "[options]\nuntil_ci = 5\nruns = 5\n"
    err = _refusal(IMAGE + never, tmp_path)
    assert err.exit_code == EXIT_USAGE
    assert err.one_line().startswith("SPACE.toml: options.until_ci makes its first look at 10")
    engine = _refusal(IMAGE + '[options]\nbuckets = "huge"\n', tmp_path)
    assert engine.exit_code == EXIT_TARGET
    assert "cannot reach a container engine at unix:///nonexistent" in engine.one_line()
    assert _refusal(IMAGE + P90.replace('"long"', '"huge"'), tmp_path).exit_code == EXIT_TARGET
    bucket = _refusal(BASE + never + 'buckets = "huge"\n', tmp_path)
    assert bucket.exit_code == EXIT_USAGE
    assert bucket.one_line().startswith("--buckets 'huge': unknown bucket 'huge'")
    slo = _refusal(
        BASE + '[options]\nbuckets = "huge"\n' + P90.replace('"long"', '"huge"'), tmp_path
    )
    assert slo.one_line().startswith("--buckets 'huge': unknown bucket 'huge'")
