"""``harness audit`` runs against llama.cpp's own ``llama-server`` and writes its report.

llama-server is an honest server nobody here wrote: no rule may FAIL it (a false cheating
verdict fails the gate and costs a competitor a day). The audit asks its rules on
llama-server's routes (the profile copy's ``/v1/completions`` and
``/v1/chat/completions``) and writes ``audit.json`` with a verdict for each rule; a rule
the evidence cannot settle is inconclusive (exit 3), never FAIL. llama.cpp has no request
counter, so ``cached_answers`` takes no counter evidence and says why. 4 rounds instead
of 16 keep it under a minute on 2 cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.audit.report import AuditReport
from harness.cli import main
from harness.profiles import load_profile
from harness.rule_report import RuleResult
from tests.fixtures.llama_server import LlamaServer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_audit_runs_on_llama_server(
    llama_server: LlamaServer, llamacpp_profile: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    argv = ["audit", "--url", llama_server.url, "--profile", str(llamacpp_profile)]
    code = main([*argv, "--rounds", "4", "--seed", "7", "--out", str(out), "--quiet"])
    assert (out / "audit.json").is_file()
    rep = AuditReport.load(out)
    # 3: a rule too noisy to judge, or not deterministic (llama-server's greedy answers were
    # seen to differ between slots); never 1
    verdicts = [(r.rule, r.result.value, r.why) for r in rep.rules]
    assert code in (0, 3) and RuleResult.FAIL not in {r.result for r in rep.rules}, verdicts
    assert rep.counters == {} and rep.counters_note, rep.counters  # no counter, never a deficit
    assert rep.counters_note.startswith("llama.cpp counts no answered requests"), rep.counters_note
    sent = [*rep.samples, *rep.probes, *rep.paraphrases, *rep.continuations]
    assert sent and not [x.error for x in sent if x.error], [x.error for x in sent if x.error]
    assert rep.endpoint == "/v1/completions"
    rules = load_profile(str(llamacpp_profile)).audit.rules
    assert sorted(r.rule for r in rep.rules) == sorted(rules)
