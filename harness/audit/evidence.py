"""Each rule's evidence in plain words, for the page a person reads (report.html's "What
each rule rests on"): the time per output token of the repeated prompt against its
controls, the server's counters, the requests that failed, the floor; and where the rule
is explained (docs/audit.md). ``audit.json`` keeps the evidence as data.

No I/O: tests/unit/test_audit_headline.py holds it with literal verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from harness.audit.report import AuditReport
from harness.audit_catalogue import entry_named
from harness.rule_report import RuleVerdict

DOCS = "docs/audit.md"


def sections(rule: str) -> str:
    """Where ``rule`` is explained in docs/audit.md (its catalogue entry's headings:
    harness/audit_catalogue.py), beyond the table of "The rules"."""
    entry = entry_named(rule)
    return "; ".join(entry.docs) if entry is not None else "The rules"


def _pct(x: object) -> str:
    return f"{x:.0%}" if isinstance(x, int | float) else "not measured"


def _ms(x: object) -> str:
    return f"{x:.2f} ms" if isinstance(x, int | float) else "not measured"


def _bucket(name: str, value: object) -> str | None:
    """A bucket's numbers, by the key the rules write them under."""
    if not isinstance(value, Mapping):
        return None
    if name.endswith("_ms_per_token"):
        return (
            f"{name.removesuffix('_ms_per_token')}: the repeated prompt took "
            f"{_ms(value.get('repeated'))} per output token, its near-filler control "
            f"{_ms(value.get('near_filler'))}, a fresh prompt (unique head) "
            f"{_ms(value.get('unique_head'))} (a prefix cache makes the first two alike; an "
            "answer cache makes the repeated prompt far cheaper)"
        )
    if name.endswith("_ratio") and "timed" in value:
        spread = [x for x in value.get("filler_spread") or [] if x is not None]
        confirm = value.get("confirm")
        second = (
            f"{_pct(confirm)} in the second set"
            if confirm is not None
            else "no second set (the first did not split)"
        )
        if value.get("third") is not None:  # both split, one narrowly: a third decided
            second += f", {_pct(value['third'])} in a third (the two split narrowly)"
        return (
            f"{name.removesuffix('_ratio')}: the repeated prompt cost {_pct(value['timed'])} of "
            f"the control's time per token in the timed rounds, {second}; their own spread "
            f"(stalls left out) {', '.join(_pct(x) for x in spread) or 'not measured'}"
        )
    if name == "quality_prompts" and isinstance(value.get("looks"), list):
        looks = [x for x in value["looks"] if isinstance(x, Mapping)]
        said = "; then ".join(
            f"{x.get('pairs')} pairs, the graders' prompts at {_pct(x.get('time_ratio'))} of "
            f"their paraphrases' time per token and {_pct(x.get('length_ratio'))} of their "
            "length"
            for x in looks
        )
        return f"quality prompts (the graders' items against light paraphrases): {said}"
    if {"median_ms", "floor_ms"} <= set(value):
        return (
            f"{name}: median {_ms(value['median_ms'])} for {value.get('output_tokens')} output "
            f"tokens; no GPU of the profile can go below {_ms(value['floor_ms'])}"
        )
    return None


def lines(v: RuleVerdict) -> list[str]:
    """The verdict's evidence, one plain sentence per item."""
    ev = v.evidence
    out: list[str] = []
    if "requests_counted" in ev:
        out.append(
            f"the server's own request counter counted {ev['requests_counted']} of the "
            f"{ev.get('requests_answered')} requests answered (fewer: answers that never "
            "reached the engine)"
        )
    elif "requests_answered" in ev:
        out.append(f"{ev['requests_answered']} requests answered; the server's counter: "
                   f"{ev.get('counters', 'not read')}")  # fmt: skip
    if ev.get("requests_failed"):
        out.append(f"requests that failed (never evidence): {ev['requests_failed']}")
    if "prefix_cache_hit_tokens" in ev:
        out.append(f"prefix-cache hits: {ev['prefix_cache_hit_tokens']} prompt tokens (legal)")
    if "prefix_cache_hits" in ev:
        out.append(f"prefix-cache hits: {ev['prefix_cache_hits']} (legal)")
    if "split_ratio" in ev:
        out.append(f"fails below {_pct(ev['split_ratio'])} in both sets of rounds")
    if "floor" in ev:
        out.append(f"the floor: {ev['floor']}")
    shown = {"requests_counted", "requests_answered", "requests_failed", "counters"}
    shown |= {"prefix_cache_hit_tokens", "prefix_cache_hits", "split_ratio", "floor"}
    for key, value in ev.items():
        if key in shown:
            continue
        said = _bucket(key, value)
        out.append(said if said else f"{key}: {json.dumps(value, ensure_ascii=False)[:300]}")
    return out


def rule_text(v: RuleVerdict) -> list[str]:
    """A rule's block: its title and result, why, its evidence, where it is explained."""
    where = sections(v.rule)
    return [
        f"{v.rule} — {v.title}: {v.result.value.upper()}",
        f"why: {v.why}",
        *(f"· {line}" for line in lines(v)),
        f"read more: {DOCS}, {where} ({v.rule})",
    ]


def page_lines(rep: AuditReport) -> list[list[str]]:
    return [rule_text(v) for v in rep.rules]
