"""An analysis returns what the run learnt in its report's provenance, never in the caller's.

``build_report`` used to write the tokenizer, the seed and the served models into the
``Provenance`` it was handed: a core that builds several reports from one record (the
partial one, the pooled one of ``--repeats``) then saw one report's facts in the next.
Now the report carries a copy with the facts (harness/provenance.py: ``with_facts``).
"""

from __future__ import annotations

from pathlib import Path

from harness.latency.analysis import build_report as latency_report
from harness.latency.config import LatencyOverrides
from harness.latency.config import from_profile as latency_from_profile
from harness.latency.state import LatencyState
from harness.profiles import load_profile
from harness.provenance import Provenance, with_facts
from harness.target import Target
from harness.throughput.analysis import build_report as throughput_report
from harness.throughput.config import ThroughputOverrides
from harness.throughput.config import from_profile as throughput_from_profile
from harness.throughput.state import ThroughputState

HERE = Target(folder=Path("."), url="http://127.0.0.1:9")


def test_the_latency_analysis_leaves_the_callers_provenance_as_it_was() -> None:
    cfg = latency_from_profile(load_profile(), HERE, LatencyOverrides(seed=11, tokenizer="t:x"))
    state = LatencyState()
    state.server_models = ["served-model"]
    given = Provenance(profile="efficient-qwen", command_line=["harness", "latency"])
    before = given.model_dump()
    report = latency_report(cfg, state, given, complete=False)
    assert given.model_dump() == before
    facts = report.provenance
    assert (facts.tokenizer, facts.seed, facts.server_models) == ("t:x", 11, ["served-model"])
    assert (facts.profile, facts.command_line) == ("efficient-qwen", ["harness", "latency"])


def test_the_throughput_analysis_leaves_the_callers_provenance_as_it_was() -> None:
    cfg = throughput_from_profile(
        load_profile("gpumode-paris"), HERE, ThroughputOverrides(seed=12, tokenizer="t:y")
    )
    state = ThroughputState()
    state.server_models = ["m1", "m2"]
    given = Provenance(profile="gpumode-paris")
    before = given.model_dump()
    report = throughput_report(cfg, state, given, complete=False)
    assert given.model_dump() == before
    facts = report.provenance
    assert (facts.tokenizer, facts.seed, facts.server_models) == ("t:y", 12, ["m1", "m2"])


def test_with_facts_copies_and_records_only_what_was_learnt() -> None:
    given = Provenance(tokenizer="kept", server_models=["a"], seed=3)
    out = with_facts(given, url="http://h:1", server_models=["b"])
    assert (out.url, out.tokenizer, out.seed, out.server_models) == ("http://h:1", "kept", 3, ["b"])
    out.command_line.append("changed")  # a deep copy: nothing of it is the caller's
    assert given.command_line == [] and given.url is None and given.server_models == ["a"]
