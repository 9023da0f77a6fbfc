"""A run that is not the grader's procedure says so (one flag, the report's and the gate's),
and --buckets names each of the profile's buckets at most once (harness/latency/buckets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.gate.rules import judge
from harness.latency.analysis import build_report
from harness.latency.buckets import choose_buckets
from harness.latency.config import LatencyOverrides, from_profile
from harness.latency.procedure import departures, procedure_flag
from harness.latency.report import RequestRow
from harness.latency.state import LatencyState
from harness.latency.views import score_lines, sections
from harness.profiles import load_profile
from harness.provenance import Provenance
from harness.risk import FlagKind
from harness.target import Target
from harness.view.model import Table
from tests.unit.test_gate_rules import inputs

PROFILE = load_profile("efficient-qwen")
SPEC = PROFILE.require_latency()
ALL = ["short", "medium", "long"]
HINT = "valid buckets: short, medium, long (the profile's; comma-separated, each once)"


def test_departures_say_what_differs_from_the_graders_procedure():
    assert departures(50, 5, ALL, SPEC) is None
    assert departures(10, 1, ["short"], SPEC) == "1 of 3 buckets; 10 runs / 1 warm-up"
    assert departures(50, 5, ["short", "long"], SPEC) == "2 of 3 buckets"
    assert departures(1, 0, ALL, SPEC) == "1 run / 0 warm-ups"
    assert departures(50, 5, ["long", "medium", "short"], SPEC) == "buckets long, medium, short"


def test_the_flag_is_typed_and_absent_for_the_graders_settings():
    assert procedure_flag({"runs": 50, "warmup": 5, "buckets": ALL}, SPEC) is None
    assert procedure_flag({}, SPEC) is None  # nothing recorded: nothing judged
    flag = procedure_flag({"runs": 10, "warmup": 1, "buckets": ["short"]}, SPEC)
    assert flag is not None and flag.kind is FlagKind.NON_OFFICIAL and flag.source == "latency"
    assert flag.text == (
        "not the grader's procedure (1 of 3 buckets; 10 runs / 1 warm-up; the grader: 50 runs"
        " / 5 warm-ups over short, medium, long): the grader's score may differ"
    )


def _short_report(runs: int, warmup: int, buckets: str | None):
    overrides = LatencyOverrides(runs=runs, warmup=warmup, buckets=buckets)
    cfg = from_profile(PROFILE, Target(folder=Path("."), url="http://x"), overrides)
    state = LatencyState(
        rows=[
            RequestRow(bucket=b.name, mode="official", phase="timed", index=i, ok=True, e2e_ms=9.0)
            for b in cfg.buckets
            for i in range(runs)
        ]
    )
    return build_report(cfg, state, Provenance(), complete=True)


def test_standalone_latency_carries_the_flag_and_says_it_in_the_headline():
    rep = _short_report(10, 1, "short")
    kinds = [f.kind for f in rep.flags]
    assert kinds.count(FlagKind.NON_OFFICIAL) == 1
    assert rep.settings["official_procedure"] is False
    assert rep.settings["departures"] == "1 of 3 buckets; 10 runs / 1 warm-up"
    head = score_lines(rep).lines[0]
    assert head.startswith("score (mean speedup): ")
    assert head.endswith(" — not the grader's procedure (1 of 3 buckets; 10 runs / 1 warm-up)")
    titles = [b.title for b in sections(rep)[0].blocks if isinstance(b, Table)]
    assert titles == [
        "official (/invocations) — not the grader's procedure (1 of 3 buckets; 10 runs / 1 warm-up)"
    ]
    # the gate says it once, judged against the profile it judges with
    _, _, flags = judge(inputs(latency=rep))
    assert [f.text for f in flags if f.kind is FlagKind.NON_OFFICIAL] == [
        "latency: " + next(f.text for f in rep.flags if f.kind is FlagKind.NON_OFFICIAL)
    ]


def test_the_graders_procedure_has_no_flag_and_a_plain_headline():
    rep = _short_report(50, 5, None)
    assert FlagKind.NON_OFFICIAL not in {f.kind for f in rep.flags}
    assert rep.settings["departures"] is None
    assert "grader" not in score_lines(rep).lines[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "--buckets '' names no bucket"),
        (" , ", "--buckets ' , ' names no bucket"),
        ("short,,long", "--buckets 'short,,long' has an empty name"),
        ("short,short", "--buckets 'short,short' names short twice"),
        ("long,short,long", "--buckets 'long,short,long' names long twice"),
        ("huge", "--buckets 'huge': unknown bucket 'huge'"),
    ],
)
def test_bad_bucket_lists_are_usage_errors_naming_the_profiles_buckets(text, message):
    with pytest.raises(ConfigError) as err:
        choose_buckets(SPEC, text)
    assert err.value.one_line() == f"{message} — {HINT}"
    with pytest.raises(ConfigError):
        from_profile(
            PROFILE, Target(folder=Path("."), url="http://x"), LatencyOverrides(buckets=text)
        )


def test_good_bucket_lists_keep_their_order():
    assert [b.name for b in choose_buckets(SPEC, None)] == ALL
    assert [b.name for b in choose_buckets(SPEC, " long , short")] == ["long", "short"]
