"""Attribution from server counters: deltas, rates, sentences, and the exposition parser."""

from __future__ import annotations

import pytest

from harness.attribution import (
    STRICT_CACHE_SHARE,
    AttributionSection,
    attribute,
    attribution_section,
    build_section,
    cache_flags,
    delta,
    gap_sentence,
    metrics_enabled,
    section_for,
)
from harness.client.fingerprint import from_answers
from harness.client.metrics import parse_exposition
from harness.simulate.metrics import SimCounters, exposition
from harness.view.model import Table, Text

# vLLM's names (vllm/v1/metrics/loggers.py), written out: a test must not read them from
# the record it checks.
PREFIX_QUERIES = "vllm:prefix_cache_queries_total"
PREFIX_HITS = "vllm:prefix_cache_hits_total"
SPEC_DRAFTS = "vllm:spec_decode_num_drafts_total"
SPEC_DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
SPEC_ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"

VLLM_TEXT = """\
# HELP python_info Python platform information
# TYPE python_info gauge
python_info{implementation="CPython",version="3.11.7"} 1.0
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="a"} 8000.0
vllm:prefix_cache_queries_total{engine="0",model_name="b"} 408.0
# HELP vllm:prefix_cache_queries_created Prefix cache queries.
# TYPE vllm:prefix_cache_queries_created gauge
vllm:prefix_cache_queries_created{engine="0",model_name="a"} 1.79e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="a"} 5760.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="a"} 0.25
"""


def test_parse_sums_label_sets_skips_created_keeps_info():
    snap = parse_exposition(VLLM_TEXT)
    assert snap.values[PREFIX_QUERIES] == 8408.0
    assert snap.values[PREFIX_HITS] == 5760.0
    assert "vllm:prefix_cache_queries_created" not in snap.values
    assert snap.info["python_info"]["version"] == "3.11.7"


def test_parse_rejects_text_that_is_not_prometheus():
    with pytest.raises(ValueError):
        parse_exposition("<html>not metrics</html>\n")


def test_delta_missing_and_reset_are_none():
    assert delta({"a": 10.0}, {"a": 25.0}, "a") == 15.0
    assert delta({}, {"a": 25.0}, "a") is None
    assert delta({"a": 30.0}, {"a": 5.0}, "a") is None  # a restart reset the counter


def test_attribute_prefix_cache_and_spec_decode_from_literals():
    before = {PREFIX_QUERIES: 100.0, PREFIX_HITS: 40.0, SPEC_DRAFTS: 0.0,
              SPEC_DRAFT_TOKENS: 0.0, SPEC_ACCEPTED: 0.0, "vllm:num_preemptions_total": 1.0}  # fmt: skip
    after = {PREFIX_QUERIES: 8508.0, PREFIX_HITS: 5800.0, SPEC_DRAFTS: 30.0,
             SPEC_DRAFT_TOKENS: 120.0, SPEC_ACCEPTED: 45.0, "vllm:num_preemptions_total": 3.0,
             "vllm:kv_cache_usage_perc": 0.5}  # fmt: skip
    a = attribute("official", "long", before, after)
    assert a.prefix_queried_tokens == 8408.0 and a.prefix_hit_tokens == 5760.0
    assert a.prefix_hit_rate == pytest.approx(5760 / 8408)
    assert a.spec_acceptance_rate == pytest.approx(45 / 120)
    assert a.spec_mean_accepted_length == pytest.approx(1 + 45 / 30)
    assert a.preemptions == 2.0
    assert a.kv_cache_usage_after == 0.5
    assert a.note is None


def test_attribute_without_any_engine_counters_is_a_note_not_an_error():
    a = attribute("strict", "short", {"x": 1.0}, {"x": 2.0})
    assert a.prefix_hit_rate is None and a.spec_acceptance_rate is None and a.engine is None
    assert a.note is not None and a.note.startswith("no known engine's counters (vLLM, SGLang")


def test_zero_queries_give_no_rate():
    a = attribute("strict", "s", {PREFIX_QUERIES: 5.0, PREFIX_HITS: 0.0},
                  {PREFIX_QUERIES: 5.0, PREFIX_HITS: 0.0})  # fmt: skip
    assert a.prefix_hit_rate is None


def test_gap_sentence_from_both_modes():
    off = attribute("official", "long", {PREFIX_QUERIES: 0.0, PREFIX_HITS: 0.0},
                    {PREFIX_QUERIES: 1000.0, PREFIX_HITS: 990.0})  # fmt: skip
    strict = attribute("strict", "long", {PREFIX_QUERIES: 0.0, PREFIX_HITS: 0.0},
                       {PREFIX_QUERIES: 1000.0, PREFIX_HITS: 0.0})  # fmt: skip
    assert gap_sentence("long", off, strict) == (
        "long bucket: 99 % of prompt tokens from the prefix cache on the repeated filler, "
        "0 % with unique prompts"
    )
    assert gap_sentence("long", None, None) == (
        "long bucket: the server's counters say nothing about the gap"
    )


def test_gap_sentence_names_spec_decode_per_mode():
    zero = {SPEC_DRAFTS: 0.0, SPEC_DRAFT_TOKENS: 0.0, SPEC_ACCEPTED: 0.0}
    off = attribute("official", "short", zero,
                    {SPEC_DRAFTS: 10.0, SPEC_DRAFT_TOKENS: 40.0, SPEC_ACCEPTED: 30.0})  # fmt: skip
    strict = attribute("strict", "short", zero,
                       {SPEC_DRAFTS: 10.0, SPEC_DRAFT_TOKENS: 40.0, SPEC_ACCEPTED: 10.0})  # fmt: skip
    assert gap_sentence("short", off, strict) == (
        "short bucket: spec-decode acceptance 75 % official (mean accepted length 4.00) "
        "vs 25 % strict (mean accepted length 2.00)"
    )


def test_build_section_orders_buckets_and_keeps_notes():
    z = {PREFIX_QUERIES: 0.0, PREFIX_HITS: 0.0}
    pairs = {
        ("official", "short"): (z, {PREFIX_QUERIES: 10.0, PREFIX_HITS: 5.0}),
        ("official", "medium"): (z, {PREFIX_QUERIES: 10.0, PREFIX_HITS: 8.0}),
        ("strict", "short"): (z, {PREFIX_QUERIES: 10.0, PREFIX_HITS: 0.0}),
        ("throughput", "c=4"): (z, {PREFIX_QUERIES: 10.0, PREFIX_HITS: 1.0}),
    }
    sec = build_section(pairs, ["n"])
    assert [s.split(":")[0] for s in sec.sentences] == ["short bucket", "medium bucket", "c=4"]
    assert sec.sentences[1] == (
        "medium bucket: 80 % of prompt tokens from the prefix cache on the repeated filler"
    )
    assert build_section({}, []).items == []


def test_attribution_view_has_one_row_per_step_then_the_sentences_and_notes():
    z = {PREFIX_QUERIES: 0.0, PREFIX_HITS: 0.0}
    pairs = {
        ("official", "short"): (z, {PREFIX_QUERIES: 183.0, PREFIX_HITS: 96.0}),
        ("strict", "short"): (z, {PREFIX_QUERIES: 192.0, PREFIX_HITS: 0.0}),
    }
    view = attribution_section(build_section(pairs, ["n"]), "latency-attribution")
    table, sentences, notes = view.blocks
    assert isinstance(table, Table) and isinstance(sentences, Text) and isinstance(notes, Text)
    assert [[c.text for c in r.cells][:4] for r in table.rows] == [
        ["official", "short", "96/183 tokens", "52%"],
        ["strict", "short", "0/192 tokens", "0%"],
    ]
    assert sentences.lines[0].startswith("short bucket: 52 % of prompt tokens")
    assert notes.lines == ("note: n",)
    # scraping off: no table, the note alone
    off = attribution_section(section_for({}, [], scraped=False, choice="auto"), "k")
    assert [type(b) for b in off.blocks] == [Text]


CHOICES = [
    ("auto", "official", False),
    ("auto", "strict", True),
    ("auto", "both", True),
    ("on", "official", True),
    ("off", "both", False),
]


@pytest.mark.parametrize(("choice", "mode", "on"), CHOICES)
def test_metrics_enabled(choice, mode, on):
    assert metrics_enabled(choice, mode) is on


def test_simulator_exposition_parses_in_vllm_names():
    c = SimCounters()
    c.record(61, 0, 8)
    c.record(61, 48, 8)
    snap = parse_exposition(exposition(c, "sim"))
    assert snap.values[PREFIX_QUERIES] == 122.0
    assert snap.values[PREFIX_HITS] == 48.0
    assert snap.values["vllm:generation_tokens_total"] == 16.0
    assert snap.info["harness_simulate_info"]["engine"] == "harness-simulate"


def test_fingerprint_from_vllm_answers():
    models = {"data": [{"id": "Qwen/Qwen3.5-4B", "owned_by": "vllm", "max_model_len": 8704},
                       {"id": "reference", "owned_by": "vllm", "max_model_len": 8704}]}  # fmt: skip
    fp = from_answers({"version": "0.32.0"}, models, parse_exposition(VLLM_TEXT))
    assert (fp.engine, fp.version, fp.max_model_len) == ("vllm", "0.32.0", 8704)
    assert fp.models == ["Qwen/Qwen3.5-4B", "reference"]
    assert fp.label() == "vllm 0.32.0 max_len 8704"


def test_fingerprint_of_nothing_is_unknown():
    fp = from_answers(None, {"error": "x"}, None)
    assert fp.engine is None and fp.models == [] and fp.label() == "unknown"


def _hits(mode: str, name: str, hits: float, queries: float):
    before = {PREFIX_QUERIES: 0.0, PREFIX_HITS: 0.0}
    return attribute(mode, name, before, {PREFIX_QUERIES: queries, PREFIX_HITS: hits})


def test_cache_flags_fire_on_seen_prompts_only():
    from harness.risk import FlagKind

    section = AttributionSection(
        items=[
            _hits("official", "short", 48.0, 64.0),  # the repeated filler: expected, never
            _hits("strict", "short", 0.0, 320.0),  # fresh prompts
            _hits("strict", "medium", 16.0 * 6, 5 * 1036.0),  # a shared template: 1.9 %
            _hits("strict", "long", 40_880.0, 40_960.0),  # seen before: 99.8 %
            _hits("throughput", "c=8", 9_000.0, 10_000.0),
        ]
    )
    flags = cache_flags(section, ("strict",), source="latency", hint="H")
    assert [f.kind for f in flags] == [FlagKind.STRICT_CACHED]
    assert "100 % of the strict long prompt tokens" in flags[0].text
    assert "(40880 of 40960 tokens)" in flags[0].text and flags[0].text.endswith("; H")
    [tp] = cache_flags(section, ("throughput",), source="throughput")
    assert "strict c=8" in tp.text and tp.source == "throughput"
    # the threshold: a shared prefix of a few blocks passes, a stale cache (>= 75 %) fires
    assert 0.019 < STRICT_CACHE_SHARE < 0.75
    edge = AttributionSection(items=[_hits("strict", "x", STRICT_CACHE_SHARE * 1000, 1000.0)])
    assert cache_flags(edge, ("strict",), source="latency") == []
