"""Reading one engine's signals off a ``/metrics`` scrape (pure functions over value maps).

``values`` is a flat ``sample name → value`` map (harness/client/metrics.py: samples
summed over their label sets, a gauge's largest label set under ``max(NAME)``). Each
reader returns a :class:`Reading` that says which metric it came from and in what unit,
or why there is none: an engine without the signal is named, with the flag that would
turn /metrics on when /metrics itself was missing. These are also the functions the
audit calls for its counter evidence (:func:`answered_requests`, :func:`prefix_cache`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.engines.record import EngineRecord, MetricName, Signal, Unit
from harness.engines.registry import ENGINES

Values = Mapping[str, float]


def peak_key(name: str) -> str:
    """The key of a gauge's largest value over its label sets (no metric name has "(")."""
    return f"max({name})"


@dataclass(frozen=True)
class Reading:
    """One signal's figure: a counter's delta, a gauge's value or a histogram's (sum, count)."""

    signal: Signal
    value: float | None
    metric: str | None = None  # the name it was read from
    unit: Unit | None = None
    count: float | None = None  # histograms: observations over the step
    note: str | None = None  # why there is no value

    @property
    def ok(self) -> bool:
        return self.value is not None


def detect_from_names(
    names: Iterable[str], engines: tuple[EngineRecord, ...] = ENGINES
) -> EngineRecord | None:
    """The engine whose metric prefix the most sample names carry (None: no engine's)."""
    seen = list(names)
    best, hits = None, 0
    for e in engines:
        n = sum(1 for k in seen if k.startswith(e.detect.metric_prefixes))
        if n > hits and e.detect.metric_prefixes:
            best, hits = e, n
    return best


def _sample(m: MetricName) -> str:
    return m.name + "_sum" if m.kind == "histogram" else m.name


def present(engine: EngineRecord, signal: Signal, values: Values) -> MetricName | None:
    """The first candidate name of ``signal`` the scrape carries."""
    spec = engine.spec(signal)
    if spec is None:
        return None
    return next((m for m in spec.names if _sample(m) in values), None)


def saved(
    values: Values, signal: Signal, engines: tuple[EngineRecord, ...] = ENGINES
) -> float | None:
    """``signal``'s figure in a map keyed by an engine's own metric names (an ``audit.json``'s
    ``counters``, written by :func:`counter_map`): the first engine's name it carries."""
    for e in engines:
        m = present(e, signal, values)
        if m is not None:
            return values[_sample(m)]
    return None


def saved_unit(
    values: Values, signal: Signal, engines: tuple[EngineRecord, ...] = ENGINES
) -> Unit | None:
    """The unit of the name :func:`saved` reads ``signal`` from (tokens, sequences, ...)."""
    for e in engines:
        m = present(e, signal, values)
        if m is not None:
            return m.unit
    return None


def _absent(engine: EngineRecord, signal: Signal) -> Reading:
    return Reading(signal, None, note=engine.why_absent(signal))


def _key(m: MetricName) -> str:
    return peak_key(m.name) if m.combine == "max" else m.name


def gauge(engine: EngineRecord, signal: Signal, values: Values) -> Reading:
    """A gauge's value in one scrape (kv usage, a hit-rate the engine keeps)."""
    m = present(engine, signal, values)
    if m is None:
        return _absent(engine, signal)
    return Reading(signal, values.get(_key(m), values[m.name]), m.name, m.unit)


def delta(engine: EngineRecord, signal: Signal, before: Values, after: Values) -> Reading:
    """A counter's (or a histogram's ``_sum``) growth between two scrapes; None when it went
    back (a restarted server resets its counters: a negative delta would be a lie)."""
    m = present(engine, signal, after)
    if m is None:
        return _absent(engine, signal)
    key = _sample(m)
    if key not in before:
        return Reading(signal, None, m.name, m.unit, note=f"{m.name} absent from the first scrape")
    d = after[key] - before[key]
    count = None
    if m.kind == "histogram":
        c = m.name + "_count"
        count = after.get(c, 0.0) - before.get(c, 0.0)
    if d < 0 or (count is not None and count < 0):
        return Reading(
            signal, None, m.name, m.unit, note=f"{m.name} went back: the server restarted?"
        )
    return Reading(signal, d, m.name, m.unit, count=count)


def answered_requests(engine: EngineRecord, before: Values, after: Values) -> Reading:
    """Requests the server answered between two scrapes (the audit's counter evidence).
    An engine without a request counter says so: an absent counter is never evidence."""
    return delta(engine, "requests", before, after)


@dataclass(frozen=True)
class PrefixCache:
    """Prefix-cache use over a step, in the engine's own unit."""

    hits: float | None = None
    lookups: float | None = None
    unit: Unit | None = None  # tokens, blocks or sequences: never relabelled as tokens
    rate: float | None = None  # hits / lookups, 0..1 (from counters)
    rate_gauge: float | None = None  # a hit-rate gauge the engine keeps, read at the end
    how: str = ""  # which metrics, and how the share was formed
    note: str | None = None  # why there is no share


def prefix_cache(engine: EngineRecord, before: Values, after: Values) -> PrefixCache:
    """Hits and lookups from the engine's counters: hits/queries where it counts lookups
    (vLLM, mistral.rs), cached/prompt tokens where it counts cached prompt tokens (the
    prompt total including them or not, as the record says: llama.cpp's excludes them).
    A hit-rate gauge the engine keeps is passed on as a rate, never turned into counts."""
    rate_gauge = gauge(engine, "prefix_hit_rate", after)
    hits = delta(engine, "prefix_hits", before, after)
    lookups = delta(engine, "prefix_lookups", before, after)
    if hits.value is not None and lookups.value is not None and hits.unit == lookups.unit:
        rate = hits.value / lookups.value if lookups.value > 0 else None
        how = f"{hits.metric} / {lookups.metric}"
        return PrefixCache(hits.value, lookups.value, hits.unit, rate, rate_gauge.value, how)
    cached = delta(engine, "cached_prompt_tokens", before, after)
    prompt = delta(engine, "prompt_tokens", before, after)
    if cached.value is not None and prompt.value is not None:
        spec = engine.spec("prompt_tokens")
        excludes = spec is not None and spec.includes.startswith("excludes")
        total = prompt.value + cached.value if excludes else prompt.value
        how = f"{cached.metric} / " + (
            f"({prompt.metric} + {cached.metric})" if excludes else f"{prompt.metric}"
        )
        rate = cached.value / total if total > 0 else None
        return PrefixCache(cached.value, total, "tokens", rate, rate_gauge.value, how)
    note = cached.note if engine.spec("cached_prompt_tokens") else hits.note or lookups.note
    if rate_gauge.value is not None:
        return PrefixCache(rate_gauge=rate_gauge.value, how=f"gauge {rate_gauge.metric}", note=note)
    return PrefixCache(note=note)


@dataclass(frozen=True)
class CounterEvidence:
    """What the audit may take from the server's counters over its run: answered requests
    and the prefix cache, each with its metric, unit and why it is missing. A missing
    counter is never evidence (``requests.value`` None: say the note, judge nothing)."""

    engine: str | None
    requests: Reading
    prefix: PrefixCache


def counter_evidence(
    before: Values,
    after: Values,
    engine: EngineRecord | None = None,
    engines: tuple[EngineRecord, ...] = ENGINES,
) -> CounterEvidence:
    """The audit's counter evidence, through the record of ``engine`` (None: the engine
    whose names the scrape carries; none known: every field says so)."""
    eng = engine if engine is not None else detect_from_names(after, engines)
    if eng is None:
        why = "no known engine's counters in /metrics"
        return CounterEvidence(None, Reading("requests", None, note=why), PrefixCache(note=why))
    return CounterEvidence(
        eng.name, answered_requests(eng, before, after), prefix_cache(eng, before, after)
    )


def counter_map(ev: CounterEvidence) -> dict[str, float]:
    """The evidence as ``audit.json`` keeps it: each figure under the metric it was read
    from (answered requests; prefix hits and lookups where both are the engine's own
    counters, in its unit). A signal the engine lacks is left out, never written as 0."""
    out: dict[str, float] = {}
    if ev.requests.value is not None and ev.requests.metric:
        out[ev.requests.metric] = ev.requests.value
    p = ev.prefix
    names = p.how.split(" / ")
    if p.hits is not None and p.lookups is not None and len(names) == 2 and "(" not in p.how:
        out[names[0]], out[names[1]] = p.hits, p.lookups
    return out
