"""The usage rule against the CPU reference server (vLLM): the demo's latency run, judged.

vLLM counts the EOS that ends the short answer (usage = text + 1) and the special tokens
its detokeniser leaves out of the long answer (usage 256, text "\\nThe"): neither is a
server misreporting usage, so neither may raise a flag. The text alone cannot tell the
long bucket's gap from inflation; ``--usage-probe on`` settles it after the buckets with
vLLM's own ``return_token_ids``. Short on purpose: short + long, 1 run, no warm-up: the
grader's official prompt is one identical filler per bucket, answered at temperature 0, so
a second run of it is the same answer counted the same way (the demo's 3 runs and 1
warm-up repeat it too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.latency.report import LatencyReport
from harness.risk import FlagKind
from reference_server.launch import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


def test_the_demo_latency_run_raises_no_usage_flag(
    reference_server: ServerProcess, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    argv = ["latency", "--url", reference_server.url, "--buckets", "short,long"]
    argv += ["--runs", "1", "--warmup", "0", "--tokenizer", str(reference_server.model_dir)]
    argv += ["--usage-probe", "on", "--ready-interval", "0.5", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    rep = LatencyReport.load(out)
    kinds = {f.kind for f in rep.flags}
    assert FlagKind.USAGE_MISMATCH not in kinds, [f.text for f in rep.flags]
    # the client's own error is judged and, on an idle machine, small against seconds
    assert rep.calibration is not None and FlagKind.SELF_TEST_ERROR not in kinds
    for b in rep.official:
        assert b.n_ok == 1 and b.n_usage_mismatch == 0
    # whatever the text could not explain was settled by the server's own token ids
    unsettled = {b.name for b in rep.official if b.n_usage_unsettled}
    assert {c.name for c in rep.usage_checks} == unsettled
    for c in rep.usage_checks:
        assert c.result == "agrees" and c.source == "token_ids", c.line()
        print(c.line())
    assert rep.notes == []
