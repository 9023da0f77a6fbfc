"""Each engine's record read against an exposition copied from that engine's own source or
docs (tests/fixtures/engines/, SOURCES.md says which file): a wrong name in a record
finds nothing there and fails here. Plus a test-only engine added by one tuple entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.attribution import attribute, build_section
from harness.client.fingerprint import Answers, from_answers
from harness.client.metrics import parse_exposition
from harness.engines.read import (
    answered_requests,
    delta,
    detect_from_names,
    gauge,
    prefix_cache,
)
from harness.engines.record import SIGNALS, Detect, EngineRecord, MetricName, SignalSpec
from harness.engines.registry import ENGINES, by_name, names

FIXTURES = Path(__file__).parents[1] / "fixtures" / "engines"


def scrape(engine: str) -> dict[str, float]:
    return parse_exposition((FIXTURES / f"{engine}.prom").read_text()).values


def zero(values: dict[str, float]) -> dict[str, float]:
    """The same server before anything was asked: every sample at 0."""
    return dict.fromkeys(values, 0.0)


def test_the_registry_lists_each_engine_once_in_order() -> None:
    assert names() == ("vllm", "sglang", "trtllm", "lmdeploy", "tgi", "llamacpp", "mistralrs")
    for e in ENGINES:
        assert {s.signal for s in e.signals} <= set(SIGNALS)
        # a signal is either read or said to be absent, never both
        assert not {s.signal for s in e.signals} & {sig for sig, _ in e.absent}, e.name


@pytest.mark.parametrize("engine", [e.name for e in ENGINES])
def test_every_verified_name_is_in_the_engines_own_exposition(engine: str) -> None:
    values = scrape(engine)
    record = by_name(engine)
    assert record is not None
    for spec in record.signals:
        for m in spec.names:
            sample = m.name + "_sum" if m.kind == "histogram" else m.name
            if m.verified:
                assert sample in values, f"{engine}: {m.name} ({spec.signal}) is not served"
                assert m.source, f"{engine}: {m.name} names no source file"


# What each exposition holds, written from the fixture files, not from the records:
# (requests answered, generated tokens, prefix share, its unit, server mean e2e in s)
EXPECTED = {
    "vllm": (5.0, 640.0, 0.25, "tokens", 0.5),
    "sglang": (5.0, 640.0, 0.25, "tokens", 0.5),
    "lmdeploy": (5.0, 640.0, 0.25, "tokens", 0.5),
    "llamacpp": (None, 640.0, 0.25, "tokens", None),
    "tgi": (5.0, 640.0, None, None, 0.5),
    "mistralrs": (5.0, None, 0.25, "sequences", 0.5),
    "trtllm": (5.0, None, None, None, 0.5),
}


@pytest.mark.parametrize("engine", list(EXPECTED))
def test_each_engine_reads_its_own_exposition(engine: str) -> None:
    after = scrape(engine)
    before = zero(after)
    record = by_name(engine)
    assert record is not None
    requests, generated, share, unit, e2e = EXPECTED[engine]
    assert answered_requests(record, before, after).value == requests
    assert delta(record, "generation_tokens", before, after).value == generated
    cache = prefix_cache(record, before, after)
    assert (cache.rate, cache.unit) == (share, unit)
    got = delta(record, "e2e_seconds", before, after)
    assert (got.value / got.count if got.count else None) == e2e


def test_an_absent_signal_says_why_never_zero() -> None:
    llama = by_name("llamacpp")
    assert llama is not None
    after = scrape("llamacpp")
    got = answered_requests(llama, zero(after), after)
    assert got.value is None and got.note is not None and "no answered requests" in got.note
    tgi = by_name("tgi")
    assert tgi is not None
    cache = prefix_cache(tgi, zero(scrape("tgi")), scrape("tgi"))
    assert cache.rate is None and cache.note == "TGI serves no prefix-cache metric"


def test_llamacpp_prompt_tokens_leave_the_cached_ones_out_and_attribution_adds_them() -> None:
    after = scrape("llamacpp")  # 300 computed + 100 from the cache
    a = attribute("official", "short", zero(after), after)
    assert a.engine == "llamacpp"
    assert (a.prompt_tokens, a.prefix_hits, a.prefix_lookups) == (400.0, 100.0, 400.0)
    assert a.prefix_hit_rate == 0.25 and a.preemptions is None
    v = scrape("vllm")  # vLLM's prompt total already holds the cached tokens
    assert attribute("official", "short", zero(v), v).prompt_tokens == 400.0


def test_units_stay_their_own_blocks_and_sequences_are_never_tokens() -> None:
    after = scrape("mistralrs")
    a = attribute("strict", "short", zero(after), after)
    assert (a.prefix_unit, a.prefix_hit_rate) == ("sequences", 0.25)
    assert a.prefix_hit_tokens is None and a.prefix_queried_tokens is None
    assert a.kv_blocks_used_after == 12.0 and a.kv_cache_usage_after is None
    section = build_section({("strict", "short"): (zero(after), after)}, [])
    assert "25 % of prefix-cache lookups (in sequences)" in section.sentences[0]


def test_a_rate_gauge_is_passed_on_as_a_rate() -> None:
    after = scrape("sglang")
    record = by_name("sglang")
    assert record is not None
    assert gauge(record, "prefix_hit_rate", after).value == 0.25
    a = attribute("throughput", "c=1", zero(after), after)
    assert a.prefix_hit_rate_gauge == 0.25 and a.spec_drafts is None


def test_a_per_engine_gauge_is_read_as_its_largest_label_set() -> None:
    after = scrape("vllm")  # two engine cores at 0.25 and 0.5: not 0.75
    assert attribute("official", "x", zero(after), after).kv_cache_usage_after == 0.5


def test_the_section_names_what_the_engine_lacks() -> None:
    after = scrape("llamacpp")
    section = build_section({("official", "short"): (zero(after), after)}, [])
    assert section.engine == "llamacpp"
    assert "llama.cpp serves no preemption counter" in section.notes
    assert "llama.cpp serves no KV-cache usage gauge on /metrics" in section.notes


def test_detection_from_names_and_routes() -> None:
    for engine in ("vllm", "sglang", "lmdeploy", "tgi", "llamacpp", "mistralrs"):
        found = detect_from_names(scrape(engine))
        assert found is not None and found.name == engine
    assert detect_from_names(scrape("trtllm")) is None  # unprefixed: --engine trtllm names it
    routes = json.loads((FIXTURES / "routes.json").read_text())
    for engine, doc in routes.items():
        got = Answers(routes=doc["answers"])
        answers = doc["answers"]
        fp = from_answers(answers.get("/version"), answers.get("/v1/models"), None, answers=got)
        assert fp.engine == engine, engine
        record = by_name(engine)
        assert record is not None and set(doc["ready"]) <= set(record.ready_routes)
        assert set(doc["config"]) <= set(record.config_routes)
    llama = from_answers(None, None, None, answers=Answers(routes=routes["llamacpp"]["answers"]))
    assert (llama.version, llama.engine_source) == ("b6000-abc1234", "GET /props")


def test_engine_override_and_unknown() -> None:
    fp = from_answers(None, None, parse_exposition((FIXTURES / "trtllm.prom").read_text()))
    assert fp.engine is None and fp.engine_source is None
    fp = from_answers(None, None, None, engine="trtllm")
    assert (fp.engine, fp.engine_source) == ("trtllm", "--engine")


TOY = EngineRecord(
    name="toy",
    title="Toy",
    signals=(
        SignalSpec("requests", (MetricName("toy_answered_total", "requests", "counter"),)),
        SignalSpec("prefix_hits", (MetricName("toy_cache_hit_blocks_total", "blocks", "counter"),)),
        SignalSpec(
            "prefix_lookups", (MetricName("toy_cache_lookups_blocks_total", "blocks", "counter"),)
        ),
    ),
    detect=Detect(metric_prefixes=("toy_",), server_headers=("toyserve/",)),
    metrics_on="start toyserve with --stats",
)
TOY_TEXT = """\
# TYPE toy_answered_total counter
toy_answered_total 3
# TYPE toy_cache_hit_blocks_total counter
toy_cache_hit_blocks_total 2
# TYPE toy_cache_lookups_blocks_total counter
toy_cache_lookups_blocks_total 8
"""


def test_a_new_engine_is_one_record_and_one_registry_entry() -> None:
    engines = (*ENGINES, TOY)
    after = parse_exposition(TOY_TEXT).values
    assert detect_from_names(after) is None  # not in the registry: unknown
    found = detect_from_names(after, engines)
    assert found is TOY
    a = attribute("official", "short", zero(after), after, engines=engines)
    assert (a.engine, a.prefix_hits, a.prefix_lookups, a.prefix_unit) == ("toy", 2, 8, "blocks")
    assert a.prefix_hit_tokens is None  # blocks are never passed off as tokens
    fp = from_answers(
        None, None, None, answers=Answers(server_header="toyserve/1.2"), engines=engines
    )
    assert (fp.engine, fp.engine_source) == ("toy", "Server header")
    assert answered_requests(TOY, zero(after), after).value == 3


def test_the_manifest_records_the_engine_and_its_own_configuration_route() -> None:
    from harness.manifest.take import build

    routes = json.loads((FIXTURES / "routes.json").read_text())
    props = dict(routes["llamacpp"]["answers"]["/props"], is_sleeping=False)
    answers = {
        "/metrics": (FIXTURES / "llamacpp.prom").read_text(),
        "/props": json.dumps(props),
        "/get_server_info": json.dumps({"tp_size": 1, "internal_states": [{"load": 3}]}),
    }
    m = build(answers, {}, None, taken="before", url="http://x")
    assert m.settings["server.engine"] == "llamacpp"
    assert m.settings["props.build_info"] == "b6000-abc1234"
    assert m.settings["get_server_info.tp_size"] == 1
    # running state is not configuration: two scrapes of one server keep one config id
    assert not [k for k in m.settings if "internal_states" in k or "is_sleeping" in k]


def test_the_audits_counter_evidence_never_takes_an_absent_counter() -> None:
    from harness.engines.read import counter_evidence

    llama = scrape("llamacpp")
    ev = counter_evidence(zero(llama), llama)
    assert ev.engine == "llamacpp" and ev.requests.value is None
    assert ev.requests.note is not None and ev.prefix.rate == 0.25
    v = scrape("vllm")
    ev = counter_evidence(zero(v), v)
    assert (ev.engine, ev.requests.value, ev.requests.metric) == (
        "vllm",
        5.0,
        "vllm:request_success_total",
    )
    none = counter_evidence({}, {"x": 1.0})
    assert none.engine is None and none.requests.value is None and none.prefix.rate is None


def test_compare_names_an_engine_change_between_two_runs() -> None:
    from harness.manifest.diff import diff_settings
    from harness.manifest.take import build

    runs = [
        build({"/metrics": (FIXTURES / f"{e}.prom").read_text()}, {}, None, taken="before", url="u")
        for e in ("vllm", "sglang")
    ]
    changes = {c.key: c for c in diff_settings(runs[0].settings, runs[1].settings)}
    assert (changes["server.engine"].a, changes["server.engine"].b) == ("vllm", "sglang")
    assert runs[0].config_id != runs[1].config_id


def test_no_metrics_names_the_flag_of_the_engine_the_fingerprint_named() -> None:
    note = "GET /metrics answered HTTP 501: no attribution from server counters"
    section = build_section({}, [note], by_name("llamacpp"))
    assert section.notes == [
        note,
        "to turn /metrics on: llama.cpp: start llama-server with --metrics",
    ]
    sglang = build_section({}, [note], by_name("sglang"))
    assert sglang.notes[1] == "to turn /metrics on: SGLang: start the server with --enable-metrics"
    vllm = build_section({}, [note], by_name("vllm"))
    assert vllm.notes[1] == "to turn /metrics on: vLLM serves /metrics by default"
