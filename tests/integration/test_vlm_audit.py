"""``harness vlm audit`` on the tiny Qwen3-VL (CPU): a wrapper answering from a table fails,
the template wrapper does not (harness/vlm/audit/). One child process per audit: the second
set is asked of the model already loaded.

Cheap on purpose: 3 rows per set, 2-token answers (non-official). The tiny random model
says the same few tokens to every input, so its rows show nothing either way: the honest
wrapper's verdict is "inconclusive by design", never a fail; the table's answers differ
between questions and stay put on any image, so it fails both sets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.audit.report import AuditReport
from harness.cli import main as harness_main
from harness.rule_report import RuleResult
from tests.fixtures.tiny_vlm import WRAPPER_DIR, tiny_vlm, write_textvqa

TABLE_WRAPPER = Path(__file__).resolve().parents[1] / "fixtures" / "vlm_table_wrapper"
CAPS = ["--audit-samples", "3", "--answer-tokens", "2", "--quiet"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_textvqa(tmp_path_factory.mktemp("vlm-audit") / "textvqa", n=6, seed=3)


def audit(wrapper: Path, dataset: Path, out: Path) -> int:
    argv = ["vlm", "audit", "--wrapper-dir", str(wrapper), "--model-path", str(tiny_vlm())]
    return harness_main([*argv, "--dataset-path", str(dataset), "--out", str(out), *CAPS])


@pytest.mark.timeout(900)
def test_a_table_of_answers_fails(dataset: Path, tmp_path: Path) -> None:
    assert audit(TABLE_WRAPPER, dataset, tmp_path / "run") == 1
    rep = AuditReport.load(tmp_path / "run")
    (rule,) = rep.rules
    assert rule.rule == "hard_coded_answers" and rule.result is RuleResult.FAIL
    assert rule.why.startswith("hard-coded answers: 3 of 3 samples")
    first, second = rule.evidence["first_set"], rule.evidence["second_set"]
    assert (first["blind"], first["fails_at"], second["blind"]) == (3, 3, 3)
    assert [s["answer"] for s in first["blind_samples"]] == ["stop", "yes", "42"]
    assert rule.evidence["non_official"] == {"answer_tokens": 2}
    assert rep.requests == 24  # 2 sets × 3 rows × 4 ways of asking
    lines = (tmp_path / "run" / "vlm-audit-records.jsonl").read_text().splitlines()
    probes = [json.loads(x) for x in lines if '"probe"' in x]
    assert {(p["set_index"], p["variant"]) for p in probes} == {
        (n, v) for n in (1, 2) for v in ("original", "other_image", "blank_image", "other_question")
    }
    assert rep.complete
    # the gate reads audit.json like any audit: the failing rule blocks, naming it
    assert harness_main(["gate", str(tmp_path / "run"), "--profile", "aicas-vlm", "--quiet"]) == 1
    gate = json.loads((tmp_path / "run" / "gate.json").read_text())
    assert any(
        r["blocking"] and r["text"].startswith("audit rule hard_coded_answers failed")
        for r in gate["reasons"]
    )


@pytest.mark.timeout(900)
def test_the_template_wrapper_is_not_failed(dataset: Path, tmp_path: Path) -> None:
    assert audit(WRAPPER_DIR, dataset, tmp_path / "run") == 0
    rep = AuditReport.load(tmp_path / "run")
    (rule,) = rep.rules
    assert rule.result is RuleResult.INCONCLUSIVE and rule.by_design
    assert rule.evidence["first_set"]["failed_rows"] == 0
    assert "second_set" not in rule.evidence  # a set that does not split needs no second
    assert rep.requests == 12
