"""harness audit against the CPU reference server (vLLM with prefix caching): no false alarm
on an honest server from the probe phase's rules, one_stack and stream_consistency
(docs/audit.md). One vLLM, one command,
in-process (the CLI's own path: parse, config, core, render, exit code)."""

from __future__ import annotations

import json

import pytest

from harness.audit.report import AuditReport, RuleResult
from harness.cli import main
from harness.errors import EXIT_OK

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_the_reference_server_is_one_model_stack_with_consistent_streams(
    reference_server, tmp_path, capsys
):
    out = tmp_path / "run"
    code = main(["audit", "--url", reference_server.url, "--out", str(out), "--rounds", "2",
                 "--tokenizer", str(reference_server.model_dir), "--json"])  # fmt: skip
    shown = json.loads(capsys.readouterr().out)
    rep = AuditReport.from_json((out / "audit.json").read_text())
    stack = next(v for v in rep.rules if v.rule == "one_stack")
    assert stack.result is RuleResult.PASS, (stack.why, stack.evidence)
    # the chat body and its templated prompt got one answer through every route
    assert {p.label for p in rep.probes if not p.stream} == {
        "chat /v1/chat/completions",
        "chat /invocations",
        "prompt /v1/completions",
        "prompt /invocations",
    }
    assert len({p.text for p in rep.probes if not p.warmup}) == 1
    # its streams are its answers: the first token, the usage (vLLM counts the EOS), one end
    streams = next(v for v in rep.rules if v.rule == "stream_consistency")
    assert streams.result is RuleResult.PASS, (streams.why, streams.evidence)
    assert [p.finish_events for p in rep.probes if p.stream] == [1, 1]
    assert code == EXIT_OK, shown["rules"]
