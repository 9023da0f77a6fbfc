"""The gate's rules for ``vlm.json`` (the AICAS profile): score terms, drops, risk flags.

There is no pass mark in the contest (a leaderboard score), so a VLM run FAILs
only when it measured nothing (no counted sample: the official TTFT is null);
it is INCOMPLETE when interrupted or when the score cannot be computed (no
ground truths); every flag of the run (typed, each of its own kind, the
non-official one included) is a risk flag here as it is.
"""

from __future__ import annotations

from harness.verdict import Judgement, Reason, partial, risk
from harness.vlm.report import VlmReport


def _f(x: float | None, fmt: str = ".3f") -> str:
    return "—" if x is None else format(x, fmt)


def vlm_rules(rep: VlmReport) -> Judgement:
    reasons: list[Reason] = []
    flags = [risk(f.kind, "vlm", f"vlm: {f.text}") for f in rep.flags]
    if rep.counted == 0:
        reasons.append(
            Reason(
                source="vlm",
                text=f"no sample counted in the official averages ({len(rep.samples)} measured): "
                "avg_ttft_ms is null, the submission scores nothing",
                blocking=True,
            )
        )
    reasons.append(
        Reason(
            source="vlm",
            text=f"avg_ttft_ms {_f(rep.avg_ttft_ms, '.2f')}, avg_throughput_tokens_per_sec "
            f"{rep.avg_throughput_tokens_per_sec:.2f} over {rep.counted}/{len(rep.samples)} samples",
        )
    )
    for s in rep.scores:
        reasons.append(
            Reason(
                source="vlm",
                text=f"score vs {s.baseline} ({s.baseline_ttft_ms:g} ms, {s.baseline_tok_s:g} tok/s) "
                f"{_f(s.score)} = accuracy {_f(s.accuracy_term)} + TTFT {_f(s.ttft_term)} "
                f"+ throughput {_f(s.throughput_term)}"
                + (f" (95% CI {_f(s.score_ci[0])}–{_f(s.score_ci[1])})" if s.score_ci else ""),
                incomplete=s.score is None and s.baseline == "official",
            )
        )
    if rep.accuracy is not None:
        a = rep.accuracy
        reasons.append(
            Reason(
                source="vlm",
                text=f"accuracy {a.headline} {_f(a.headline_value)} (headline); "
                f"VQA standard {_f(a.vqa)}, containment {_f(a.containment)}, "
                f"yes/no {_f(a.yes_no)} over {a.yes_no_n}",
            )
        )
    if not rep.complete:
        reasons.append(partial("vlm", VlmReport.FILENAME))
    return reasons, flags


def vlm_score(rep: VlmReport) -> float | None:
    s = rep.score("official")
    return s.score if s else None
