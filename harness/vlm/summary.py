"""VLM's summary facet (harness/view/summary.py): the AICAS figures of ``vlm.json`` in the
ledger (the official means and the official-baseline score) and its score column."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from harness.view import fmt
from harness.view.summary import KindSummary, LedgerColumn
from harness.vlm.report import VlmReport


class VlmFigures(BaseModel):
    model_config = ConfigDict(extra="ignore")

    mode: str | None = None
    avg_ttft_ms: float | None = None
    avg_tok_s: float | None = None
    counted: int | None = None
    samples: int | None = None
    score: float | None = None
    terms: list[float | None] = Field(default_factory=list)  # accuracy, TTFT, throughput
    accuracy: float | None = None
    accuracy_name: str | None = None


class VlmLedger(BaseModel):
    """VLM's key of a ledger line."""

    model_config = ConfigDict(extra="ignore")

    vlm: VlmFigures | None = None


def ledger_fields(vlm: VlmReport) -> VlmLedger:
    official = vlm.score("official")
    acc = vlm.accuracy
    figures = VlmFigures(
        mode=vlm.mode,
        avg_ttft_ms=vlm.avg_ttft_ms,
        avg_tok_s=vlm.avg_throughput_tokens_per_sec,
        counted=vlm.counted,
        samples=len(vlm.samples),
        score=official.score if official else None,
        terms=[
            official.accuracy_term if official else None,
            official.ttft_term if official else None,
            official.throughput_term if official else None,
        ],
        accuracy=acc.headline_value if acc else None,
        accuracy_name=acc.headline if acc else None,
    )
    return VlmLedger(vlm=figures)


def _f(x: float | None, spec: str = ".3f") -> str:
    return format(x, spec) if x is not None else fmt.DASH


def summary_line(v: VlmFigures) -> str:
    t = " + ".join(_f(x) for x in v.terms) if v.terms else fmt.DASH
    return (
        f"avg TTFT {_f(v.avg_ttft_ms, '.2f')} ms, {_f(v.avg_tok_s, '.2f')} tok/s over "
        f"{v.counted}/{v.samples} samples; accuracy ({v.accuracy_name}) "
        f"{_f(v.accuracy)}; score {_f(v.score)} = {t}"
    )


def facts(part: VlmLedger) -> list[tuple[str, str]]:
    return [] if part.vlm is None else [("AICAS VLM", summary_line(part.vlm))]


def score_columns(parts: Sequence[VlmLedger]) -> list[LedgerColumn[VlmLedger]]:
    """``VLM score``, once any run has its figures."""
    if all(p.vlm is None for p in parts):
        return []
    return [LedgerColumn("VLM score", lambda p: fmt.num(p.vlm.score if p.vlm else None, ".3f"))]


SUMMARY: KindSummary[VlmReport, VlmLedger] = KindSummary(
    part=VlmLedger, of=ledger_fields, facts=facts, score_columns=score_columns
)
