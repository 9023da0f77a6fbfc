"""Throughput's summary facet (harness/view/summary.py): its weighted score in the ledger."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.throughput.report import ThroughputReport
from harness.throughput.scoring import SCORE
from harness.view.summary import KindSummary, LedgerColumn


class ThroughputLedger(BaseModel):
    """Throughput's key of a ledger line."""

    model_config = ConfigDict(extra="ignore")

    throughput_score: float | None = None


def ledger_fields(throughput: ThroughputReport) -> ThroughputLedger:
    return ThroughputLedger(throughput_score=throughput.score)


def facts(part: ThroughputLedger) -> list[tuple[str, str]]:
    if part.throughput_score is None:
        return []
    return [("throughput score", f"{SCORE.text(part.throughput_score)} ({SCORE.name})")]


def score_columns(parts: Sequence[ThroughputLedger]) -> list[LedgerColumn[ThroughputLedger]]:
    """``tok/s score``, once any run has one."""
    if all(p.throughput_score is None for p in parts):
        return []
    return [LedgerColumn("tok/s score", lambda p: SCORE.text(p.throughput_score))]


SUMMARY: KindSummary[ThroughputReport, ThroughputLedger] = KindSummary(
    part=ThroughputLedger, of=ledger_fields, facts=facts, score_columns=score_columns
)
