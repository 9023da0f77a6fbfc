"""The rule against hard-coded answers, judged from the wrapper's answers (pure functions).

A wrapper that answers from a table keyed by the question (or by the image) gives the same
answer whatever the image (or the question) is; an honest model's answer follows both. Per
row of a set (harness/vlm/audit/script.py asks the four ways), a row is:

- *informative* when its answer differs from its partner's answer (another image and
  another question): a wrapper whose answers do not vary between samples at all (a model
  that says the same to everything) shows nothing either way;
- *blind* when, informative, its answer stays the same on another image AND on a blank one
  (the question decides it alone), or with another question on its own image (the image
  decides it alone).

An honest model is blind on at most ``honest_blind_share`` of the rows (a yes/no question
that gets "No" whatever the image can be); a set *splits* when its blind count is one that
share reaches with probability at most ``alpha`` (binomial tail). The rule fails only when a
second, independent set (the next rows) splits too: an honest model fails with at most
``alpha²``. Error rates: bench/vlm_audit.py; docs/audit.md, "AICAS".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from harness.audit_catalogue import HARD_CODED_ANSWERS
from harness.profiles import VlmAuditSpec
from harness.rule_report import RuleResult, RuleVerdict
from harness.stats.binomial import upper_tail

RULE = HARD_CODED_ANSWERS.name
TITLE = "no hard-coded answers (answers follow the image and the question)"
Variant = Literal["original", "other_image", "blank_image", "other_question"]
SHOWN_CHARS = 80  # an answer as the evidence quotes it


class AnswerProbe(BaseModel):
    """One answer of the audit's script: a row asked one way."""

    model_config = ConfigDict(extra="ignore")  # the script's line also carries its "type"

    set_index: int = 1  # the first set, or the second that confirms it
    row: int
    question_id: Any = None
    variant: Variant
    partner_row: int | None = None
    answer: str | None = None
    ms: float | None = None
    error: str | None = None


@dataclass(frozen=True)
class RowLook:
    """One row's four answers, compared."""

    row: int
    question_id: Any
    answered: bool  # every way of asking answered (no error)
    informative: bool
    image_blind: bool
    question_blind: bool
    answer: str

    @property
    def blind(self) -> bool:
        return self.informative and (self.image_blind or self.question_blind)


@dataclass(frozen=True)
class SetCount:
    """A set's rows, counted: how many say anything, how many are blind, the threshold."""

    rows: int
    failed: int  # rows with a failed call
    informative: int
    blind: int
    threshold: int | None  # the blind count that splits the set; None: too few informative
    blind_rows: list[RowLook] = field(default_factory=list)

    @property
    def splits(self) -> bool:
        return self.threshold is not None and self.blind >= self.threshold

    def evidence(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "failed_rows": self.failed,
            "informative": self.informative,
            "blind": self.blind,
            "fails_at": self.threshold,
            "blind_samples": [
                {
                    "question_id": r.question_id,
                    "answer": r.answer[:SHOWN_CHARS],
                    "same_on": ["another image", "a blank image"] * r.image_blind
                    + ["another question"] * r.question_blind,
                }
                for r in self.blind_rows
            ],
        }


def blind_threshold(n: int, share: float, alpha: float) -> int | None:
    """The smallest blind count of ``n`` informative rows that an honest model (blind with
    probability ``share``) reaches with probability at most ``alpha``; None when none does."""
    for k in range(1, n + 1):
        if upper_tail(k, n, share) <= alpha:
            return k
    return None


def look(row: int, probes: list[AnswerProbe], partner_answer: str | None) -> RowLook:
    by = {p.variant: p for p in probes}
    answered = all(p.error is None and p.answer is not None for p in by.values())
    original = by["original"].answer if "original" in by else None
    text = original or ""
    if not answered or original is None or len(by) < 4:  # failed, or no partner to ask with
        return RowLook(row, _qid(probes), answered, False, False, False, text)
    same = {v: by[v].answer == original for v in ("other_image", "blank_image", "other_question")}
    return RowLook(
        row=row,
        question_id=_qid(probes),
        answered=True,
        informative=partner_answer is not None and partner_answer != original,
        image_blind=same["other_image"] and same["blank_image"],
        question_blind=same["other_question"],
        answer=text,
    )


def _qid(probes: list[AnswerProbe]) -> Any:
    return probes[0].question_id if probes else None


def count_set(probes: list[AnswerProbe], spec: VlmAuditSpec) -> SetCount:
    """One set's answers → its count (rows in the order the script asked them)."""
    rows: dict[int, list[AnswerProbe]] = {}
    for p in probes:
        rows.setdefault(p.row, []).append(p)
    originals = {
        r: next((p.answer for p in ps if p.variant == "original" and p.error is None), None)
        for r, ps in rows.items()
    }
    looks = []
    for r, ps in rows.items():
        partner = ps[0].partner_row
        looks.append(look(r, ps, originals.get(partner) if partner is not None else None))
    informative = [x for x in looks if x.informative]
    blind = [x for x in informative if x.blind]
    return SetCount(
        rows=len(looks),
        failed=sum(not x.answered for x in looks),
        informative=len(informative),
        blind=len(blind),
        threshold=blind_threshold(len(informative), spec.honest_blind_share, spec.alpha),
        blind_rows=blind,
    )


def _said(c: SetCount) -> str:
    return f"{c.blind} of {c.informative} samples"


def verdict(first: SetCount, second: SetCount | None, spec: VlmAuditSpec) -> RuleVerdict:
    """The rule's verdict from the first set and, when it split, the second."""
    evidence: dict[str, Any] = {
        "honest_blind_share": spec.honest_blind_share,
        "alpha_per_set": spec.alpha,
        "first_set": first.evidence(),
    }
    if second is not None:
        evidence["second_set"] = second.evidence()

    def result(r: RuleResult, why: str, *, by_design: bool = False) -> RuleVerdict:
        return RuleVerdict(
            rule=RULE, title=TITLE, result=r, why=why, by_design=by_design, evidence=evidence
        )

    if first.threshold is None:
        if first.failed * 2 > first.rows:
            return result(
                RuleResult.INCONCLUSIVE,
                f"the wrapper's calls failed on {first.failed} of {first.rows} samples",
            )
        return result(
            RuleResult.INCONCLUSIVE,
            f"the answers hardly vary between samples ({first.informative} of {first.rows} "
            "differ from another sample's): too few to show hard-coding either way",
            by_design=True,
        )
    if not first.splits:
        return result(
            RuleResult.PASS,
            f"answers follow the image and the question: {_said(first)} answered alike "
            f"on changed inputs (fails at {first.threshold})",
        )
    if second is None or second.threshold is None:
        rows = "no rows left" if second is None else "too few informative samples"
        return result(
            RuleResult.INCONCLUSIVE,
            f"{_said(first)} answered alike on changed inputs, but a second set could not "
            f"confirm it ({rows}; pass a dataset of {2 * spec.samples} rows or more)",
        )
    if second.splits:
        return result(
            RuleResult.FAIL,
            f"hard-coded answers: {_said(first)} answered the same whatever the image "
            f"(or the question), then {_said(second)} in a second set (fails at "
            f"{first.threshold} and {second.threshold})",
        )
    return result(
        RuleResult.PASS,
        f"{_said(first)} answered alike on changed inputs, but a second, independent set "
        f"did not confirm it ({_said(second)}, fails at {second.threshold})",
    )
