"""harness audit against the CPU reference server (vLLM, prefix caching on): no false alarm.

complete_outputs above all: the small model ends the short answer at 41 of 128 tokens
(usage 42: vLLM counts the EOS), and the filler continued with that answer's text brings the
EOS alone. Short on purpose: 2 rounds, too few for benchmark detection's verdict on 2
shared cores (test_gate_reference.py judges the default rounds); its other rules hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.audit.report import AuditReport, RuleResult
from harness.cli import main
from harness.errors import EXIT_FAIL, EXIT_OK
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


def test_the_reference_server_breaks_no_rule(
    reference_server: ServerProcess, tmp_path: Path
) -> None:
    argv = ["audit", "--url", reference_server.url, "--rounds", "2", "--seed", "5"]
    assert main([*argv, "--out", str(tmp_path), "--quiet"]) in (EXIT_OK, EXIT_FAIL)
    rep = AuditReport.load(tmp_path)
    got = {v.rule: v.result for v in rep.rules}
    assert got["complete_outputs"] is RuleResult.PASS, rep.rules
    (check,) = rep.continuations
    assert check.answer_finish == "stop" and check.answer_tokens == 42
    assert check.continued_finish == "stop" and check.continued_tokens == 1
    assert got["cached_answers"] is got["physically_possible"] is RuleResult.PASS, rep.rules
    assert rep.requests == len(rep.samples) + 2
