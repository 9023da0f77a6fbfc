"""The rule against hard-coded answers, judged from literal answers (harness/vlm/audit/judge.py),
and `harness vlm audit` refusing bad input before any child starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.profiles import VlmAuditSpec
from harness.rule_report import RuleResult
from harness.stats.binomial import upper_tail as binomial_tail
from harness.vlm.audit.judge import AnswerProbe, blind_threshold, count_set, verdict

SPEC = VlmAuditSpec(samples=4, honest_blind_share=0.2, alpha=0.03)


def row(
    r: int, partner: int | None, original: str, other_image: str, blank: str, other_q: str
) -> list[AnswerProbe]:
    answers = {
        "original": original,
        "other_image": other_image,
        "blank_image": blank,
        "other_question": other_q,
    }
    return [
        AnswerProbe(row=r, question_id=100 + r, variant=v, partner_row=partner, answer=a)  # type: ignore[arg-type]
        for v, a in answers.items()
    ]


def honest_set(rows: int = 4) -> list[AnswerProbe]:
    out: list[AnswerProbe] = []
    for r in range(rows):
        out += row(r, (r + 1) % rows, f"it says {r}", f"it says {r + 1}", "blank", f"q{r + 1}")
    return out


def table_set(rows: int = 4, start: int = 0) -> list[AnswerProbe]:
    """A table keyed by question: the same answer on any image, another for another question."""
    out: list[AnswerProbe] = []
    for k in range(rows):
        r = start + k
        partner = start + (k + 1) % rows
        out += row(r, partner, f"answer {r}", f"answer {r}", f"answer {r}", f"answer {partner}")
    return out


def test_binomial_tail_and_threshold() -> None:
    assert binomial_tail(0, 4, 0.2) == pytest.approx(1.0)
    assert binomial_tail(4, 4, 0.2) == pytest.approx(0.2**4)
    assert binomial_tail(3, 4, 0.2) == pytest.approx(4 * 0.2**3 * 0.8 + 0.2**4)  # 0.0272
    assert blind_threshold(4, 0.2, 0.03) == 3
    assert blind_threshold(16, 0.2, 0.03) == 7
    assert blind_threshold(2, 0.2, 0.03) is None  # 0.04 > 0.03: two rows never fail
    assert blind_threshold(0, 0.2, 0.03) is None


def test_honest_answers_pass() -> None:
    first = count_set(honest_set(), SPEC)
    assert (first.rows, first.informative, first.blind, first.threshold) == (4, 4, 0, 3)
    v = verdict(first, None, SPEC)
    assert v.result is RuleResult.PASS
    assert "0 of 4 samples" in v.why


def test_table_fails_only_when_the_second_set_confirms() -> None:
    first = count_set(table_set(), SPEC)
    assert (first.informative, first.blind) == (4, 4) and first.splits
    assert first.blind_rows[0].image_blind and not first.blind_rows[0].question_blind
    second = count_set(table_set(start=4), SPEC)
    v = verdict(first, second, SPEC)
    assert v.result is RuleResult.FAIL and v.blocking
    assert v.why.startswith("hard-coded answers: 4 of 4 samples")
    shown = v.evidence["first_set"]["blind_samples"][0]
    assert shown == {
        "question_id": 100,
        "answer": "answer 0",
        "same_on": ["another image", "a blank image"],
    }
    not_confirmed = verdict(first, count_set(honest_set(), SPEC), SPEC)
    assert not_confirmed.result is RuleResult.PASS
    assert "did not confirm" in not_confirmed.why
    no_rows = verdict(first, None, SPEC)
    assert no_rows.result is RuleResult.INCONCLUSIVE and not no_rows.by_design


def test_image_keyed_table_is_blind_to_the_question() -> None:
    probes: list[AnswerProbe] = []
    for r in range(4):  # keyed by image: another question on the same image, the same answer
        probes += row(r, (r + 1) % 4, f"img {r}", f"img {r + 1}", "grey", f"img {r}")
    c = count_set(probes, SPEC)
    assert c.blind == 4 and c.blind_rows[0].question_blind and not c.blind_rows[0].image_blind


def test_answers_that_never_vary_are_inconclusive_by_design() -> None:
    probes: list[AnswerProbe] = []
    for r in range(4):  # a model that says the same to everything (the tiny random one)
        probes += row(r, (r + 1) % 4, "\n\n", "\n\n", "\n\n", "\n\n")
    c = count_set(probes, SPEC)
    assert (c.informative, c.blind, c.threshold) == (0, 0, None)
    v = verdict(c, None, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE and v.by_design
    assert "hardly vary" in v.why


def test_failed_calls_are_inconclusive_not_by_design() -> None:
    probes = [
        AnswerProbe(row=r, variant="original", partner_row=(r + 1) % 4, error="original: boom")
        for r in range(4)
    ]
    c = count_set(probes, SPEC)
    assert (c.failed, c.informative) == (4, 0)
    v = verdict(c, None, SPEC)
    assert v.result is RuleResult.INCONCLUSIVE and not v.by_design
    assert "failed on 4 of 4" in v.why


def test_a_row_without_partner_says_nothing() -> None:
    probes = [AnswerProbe(row=0, variant="original", partner_row=None, answer="x")]
    c = count_set(probes, SPEC)
    assert (c.rows, c.failed, c.informative) == (1, 0, 0)


def test_the_command_refuses_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["vlm", "audit", "--model-path", str(tmp_path), "--dataset-path", str(tmp_path)]
    out = ["--out", str(tmp_path / "run"), "--quiet"]
    assert main([*base, "--wrapper-dir", str(tmp_path), "--audit-samples", "2", *out]) == 2
    assert "--audit-samples must be 3 or more" in capsys.readouterr().err
    assert main([*base, "--wrapper-dir", str(tmp_path), *out]) == 2
    err = capsys.readouterr().err
    assert f"no evaluation_wrapper.py in {tmp_path}" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "audit.json").exists()
