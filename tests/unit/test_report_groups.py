"""Ledger groups (harness/report/experiment.py) and who is ranked (eligibility.py): literal entries."""

from __future__ import annotations

from typing import Any

from harness.profiles import load_profile
from harness.report.eligibility import HIDDEN, why_not
from harness.report.entry import LedgerEntry
from harness.report.experiment import group_entries, group_key, group_keys, in_experiment, world

PROFILE = load_profile("efficient-qwen")
BUCKETS = ["short", "medium", "long"]


def entry(i: int, **over: Any) -> LedgerEntry:
    """A complete official run of the profile's three buckets with the grader's 50 / 5."""
    data: dict[str, Any] = {
        "id": f"2026010{i}-100000-r{i}",
        "time": f"2026-01-0{i}T10:00:00+00:00",
        "profile": "efficient-qwen",
        "server": {"url": "http://127.0.0.1:8000"},
        "score": 1.5,
        "score_mode": "official",
        "buckets": [
            {"name": b, "mode": "official", "median_ms": 100.0, "n_ok": 50} for b in BUCKETS
        ],
        "procedure": {"runs": 50, "warmup": 5, "buckets": BUCKETS, "official": True},
    }
    data.update(over)
    return LedgerEntry.model_validate(data)


def test_world_is_the_engine_and_models_else_the_address_else_unknown() -> None:
    sim = {"engine": "harness-simulate", "version": "0.9", "models": ["qwen"]}
    assert world(entry(1, server=sim)) == "harness-simulate 0.9 · qwen"
    assert world(entry(1, server={"models": ["m"]})) == "m"
    assert world(entry(1)) == "server at 127.0.0.1:8000 (no fingerprint)"
    assert world(entry(1, server={})) == "unknown server"


def test_a_simulator_and_vllm_never_share_a_group_but_an_experiment_joins_them() -> None:
    sim = entry(1, server={"engine": "harness-simulate", "version": "0.9", "models": ["q"]})
    vllm = entry(2, server={"engine": "vllm", "version": "0.32.0", "models": ["q"]})
    assert group_key(sim) != group_key(vllm)
    a = entry(1, server=sim.server.model_dump(), experiment="kv")
    b = entry(2, server=vllm.server.model_dump(), experiment="kv")
    assert group_key(a) == group_key(b)
    assert group_key(a).label == "experiment kv (efficient-qwen)"
    # another profile is another group, even under one experiment name
    assert group_key(entry(3, experiment="kv", profile="gpumode-paris")) != group_key(a)


def test_groups_newest_first_each_oldest_first_and_one_experiment_selected() -> None:
    es = [
        entry(1, experiment="a"),
        entry(2),
        entry(3, experiment="a"),
        entry(4, server={"engine": "vllm", "version": "1", "models": ["q"]}),
    ]
    groups = group_entries(es)
    assert [[e.id[-2:] for e in g.entries] for g in groups] == [["r4"], ["r1", "r3"], ["r2"]]
    assert [e.id[-2:] for e in in_experiment(es, "a")] == ["r1", "r3"]
    label = groups[2].key.label
    assert label == "efficient-qwen on server at 127.0.0.1:8000 (no fingerprint)"
    assert [e.id[-2:] for e in in_experiment(es, label)] == ["r2"]
    assert in_experiment(es, "nosuch") == [] and group_entries([]) == []


def test_a_complete_official_run_of_every_bucket_is_ranked() -> None:
    assert why_not(entry(1), PROFILE) == []
    # an older report without settings is not judged on its procedure (as the gate does)
    assert why_not(entry(1, procedure=None), PROFILE) == []


def test_why_a_run_is_not_ranked() -> None:
    partial = entry(
        1,
        complete=False,
        buckets=[
            {"name": "short", "mode": "official", "median_ms": 90.0, "n_ok": 50},
            {"name": "medium", "mode": "official", "median_ms": 95.0, "n_ok": 7, "n_failed": 1},
        ],
    )
    assert why_not(partial, PROFILE) == ["partial: medium 8/50", "2 of 3 buckets (no long)"]
    long_only = entry(
        2,
        buckets=[{"name": "long", "mode": "official", "median_ms": 90.0, "n_ok": 50}],
        procedure={"runs": 50, "warmup": 5, "buckets": ["long"], "official": False},
    )
    assert why_not(long_only, PROFILE) == ["1 of 3 buckets (no short, medium)"]
    quick = entry(3, procedure={"runs": 10, "warmup": 1, "buckets": BUCKETS, "official": False})
    assert why_not(quick, PROFILE) == ["10 runs / 1 warm-up (the grader: 50 / 5)"]
    early = {"runs": 50, "warmup": 5, "buckets": BUCKETS, "official": False, "until_ci": 1.0}
    assert why_not(entry(4, procedure=early), PROFILE) == [
        "--until-ci 1 stopped early: an estimate"
    ]
    strict = entry(5, score_mode="strict", buckets=[])
    assert why_not(strict, PROFILE)[0] == "strict score only (the grader times official requests)"
    assert why_not(entry(6), PROFILE, hidden=True) == [HIDDEN]
    assert why_not(entry(7, score=None), PROFILE) == ["no latency score"]
    assert why_not(entry(8, complete=False), PROFILE) == ["partial (interrupted)"]


def test_without_the_profile_only_what_the_report_says_is_judged() -> None:
    quick = entry(1, procedure={"runs": 10, "warmup": 1, "buckets": ["short"], "official": False})
    assert why_not(quick, None) == ["not the grader's procedure"]


def test_a_run_without_a_fingerprint_joins_the_server_at_its_address() -> None:
    """Official throughput never asks /v1/models: its run has only the address. The gate run
    of the same simulator, an hour earlier at that address, fingerprinted it: one server, one
    group. A run at another address with no fingerprint anywhere is its own."""
    sim = {"url": "http://127.0.0.1:8000", "engine": "harness-simulate", "models": ["q"]}
    gate = entry(1, server=sim, profile="gpumode-paris")
    alone = entry(2, profile="gpumode-paris")  # http://127.0.0.1:8000, no fingerprint
    other = entry(3, profile="gpumode-paris", server={"url": "http://127.0.0.1:9000"})
    groups = group_entries([gate, alone, other])
    assert sorted([e.id[-2:] for e in g.entries] for g in groups) == [["r1", "r2"], ["r3"]]
    joined = next(g for g in groups if len(g.entries) == 2)
    assert joined.key.label == "gpumode-paris on harness-simulate · q"
    assert in_experiment([gate, alone, other], joined.key.label) == [gate, alone]
    # the nearest fingerprint in time names the server (a restart there as vLLM, later)
    vllm = {"url": "http://127.0.0.1:8000", "engine": "vllm", "models": ["q"]}
    later = entry(4, server=vllm, profile="gpumode-paris")
    assert group_keys([alone], [gate, later])[alone.id] == group_key(gate)
    assert group_keys([alone], [later])[alone.id] == group_key(later)
