"""Integrity flags of a VLM run: behaviour the official averages hide.

Each rule reads per-sample records (and the run's environment) and returns
typed :class:`~harness.risk.RiskFlag` records, each of its own kind; the gate
shows them as risks (``--strict`` makes them block) and decides by kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.risk import FlagKind, RiskFlag
from harness.vlm.report import VlmSample

# A 128-token call (1 prefill + 127 decode steps) faster than the 1-token call that
# precedes it means the second call reused work: vision features, a prefix cache.
SECOND_CALL_RATIO = 1.0
SECOND_CALL_SHARE = 0.5  # flag when more than half the samples show it
EARLY_EOS_SHARE = 0.1
COLD_FIRST_RATIO = 0.5


def flag(kind: FlagKind, text: str) -> RiskFlag:
    return RiskFlag(kind=kind, text=text, source="vlm")


def early_eos(samples: Sequence[VlmSample], tokens: int) -> list[RiskFlag]:
    counted = [s for s in samples if s.throughput_tokens > 0]
    early = [s for s in counted if s.early_eos]
    if counted and len(early) / len(counted) > EARLY_EOS_SHARE:
        mean = sum(s.throughput_tokens for s in early) / len(early)
        return [
            flag(
                FlagKind.EARLY_STOP,
                f"early EOS in the {tokens}-token call on {len(early)}/{len(counted)} samples "
                f"(mean {mean:.0f} tokens): tok/s divides fewer tokens by a prefill-heavy time",
            )
        ]
    return []


def call_dependence(samples: Sequence[VlmSample], tokens: int) -> list[RiskFlag]:
    out = []
    bad = [s for s in samples if s.throughput_prefix_of_answer is False]
    if bad:
        ids = ", ".join(str(s.question_id) for s in bad[:5])
        out.append(
            flag(
                FlagKind.VLM_CALL_DEPENDENCE,
                f"the {tokens}-token output is not a prefix of the answer on {len(bad)} samples "
                f"(e.g. {ids}): output depends on max_new_tokens or on call order",
            )
        )
    first = [s for s in samples if s.ttft_token_matches is False]
    if first:
        out.append(
            flag(
                FlagKind.VLM_CALL_DEPENDENCE,
                f"the TTFT call's token differs from the {tokens}-token call's first token "
                f"on {len(first)} samples",
            )
        )
    return out


def second_call_faster(samples: Sequence[VlmSample]) -> list[RiskFlag]:
    pairs = [
        s
        for s in samples
        if s.ttft_ms is not None and s.throughput_ms is not None and s.throughput_tokens > 1
    ]
    fast = [
        s
        for s in pairs
        if s.throughput_ms is not None and s.throughput_ms < SECOND_CALL_RATIO * (s.ttft_ms or 0)
    ]
    if pairs and len(fast) / len(pairs) > SECOND_CALL_SHARE:
        return [
            flag(
                FlagKind.VLM_CROSS_CALL_CACHE,
                f"{len(fast)}/{len(pairs)} multi-token calls took less time than the 1-token "
                "call before them on the same inputs: work is cached across generate calls "
                "(the contest's three calls per image reward it)",
            )
        ]
    return []


def cold_first_sample(samples: Sequence[VlmSample]) -> list[RiskFlag]:
    """The warm-up's 10-token calls may not warm the 128/1024-token paths."""
    rates = [s.tok_s for s in samples if s.counted and s.tok_s > 0]
    if len(rates) < 3:
        return []
    med = sorted(rates)[len(rates) // 2]
    if rates[0] < COLD_FIRST_RATIO * med:
        return [
            flag(
                FlagKind.VLM_COLD_WARMUP,
                f"the first measured sample ran at {rates[0]:.1f} tok/s against a median of "
                f"{med:.1f}: the 10-token warm-up did not warm the longer generate path "
                "(it counts in the mean)",
            )
        ]
    return []


def dropped(samples: Sequence[VlmSample]) -> list[RiskFlag]:
    out = [s for s in samples if not s.counted]
    if not out:
        return []
    why = "; ".join(f"{s.question_id}: {s.error or 'tok/s 0'}" for s in out[:3])
    return [
        flag(
            FlagKind.REQUEST_FAILURES,
            f"{len(out)}/{len(samples)} samples left out of the official averages ({why}): "
            "the official script only warns",
        )
    ]


def pixel_budget(
    environment: dict[str, Any], folder_config: dict[str, Any] | None
) -> list[RiskFlag]:
    """The processor in use vs the model folder's ``preprocessor_config.json``."""
    if not folder_config:
        return []
    used = environment.get("processor_pixels") or {}
    size_used = used.get("size") or {}
    size_cfg = folder_config.get("size") or {}
    diffs = []
    for key, cfg_key in (("shortest_edge", "min_pixels"), ("longest_edge", "max_pixels")):
        want = size_cfg.get(key, folder_config.get(cfg_key))
        have = size_used.get(key, used.get(cfg_key))
        if want is not None and have is not None and want != have:
            diffs.append(f"{key} {have} (folder: {want})")
    if diffs:
        return [
            flag(
                FlagKind.VLM_PIXEL_BUDGET,
                "the processor's pixel budget differs from the model folder's config: "
                + ", ".join(diffs)
                + " — fewer visual tokens trade accuracy for speed",
            )
        ]
    return []


def repeated_images(samples: Sequence[VlmSample]) -> list[RiskFlag]:
    seen: dict[str, int] = {}
    for s in samples:
        if s.image_sha256:
            seen[s.image_sha256] = seen.get(s.image_sha256, 0) + 1
    rep = sum(n - 1 for n in seen.values() if n > 1)
    if rep:
        return [
            flag(
                FlagKind.VLM_REPEATED_IMAGES,
                f"{rep} samples reuse an image already sent: a server's encoder or prefix "
                "cache can flatter their TTFT",
            )
        ]
    return []


def no_ground_truth() -> list[RiskFlag]:
    return [
        flag(
            FlagKind.VLM_NO_GROUND_TRUTH,
            "no ground-truth answers in the dataset: accuracy and the score are not computed",
        )
    ]


def non_official(settings: dict[str, Any]) -> list[RiskFlag]:
    """One flag for every setting that differs from the profile (tests, quick looks)."""
    if not settings:
        return []
    return [flag(FlagKind.NON_OFFICIAL, f"non-official settings (tests / quick looks): {settings}")]


def runner_stopped(exit_code: int | None, log_tail: str) -> RiskFlag:
    return flag(FlagKind.RUN_STOPPED, f"the runner stopped early (exit {exit_code}): {log_tail}")
