"""``harness vlm audit``'s core: the wrapper asked about changed inputs, one verdict out.

The first set (the dataset's first ``samples`` rows) runs in the participant's Python
(harness/vlm/audit/script.py, a child like the benchmark runner); when it splits
(harness/vlm/audit/judge.py), a second, independent set (the next rows) runs in a fresh
child before the rule may fail. The verdict goes into ``audit.json``, the audit's own
report (harness/audit/report.py), so ``harness gate`` judges it like any audit; every
answer stays in the sets' JSON-lines files beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from harness.audit.report import AuditReport
from harness.errors import TargetError
from harness.provenance import Provenance
from harness.vlm.audit.config import VlmAuditConfig
from harness.vlm.audit.judge import AnswerProbe, SetCount, count_set, verdict
from harness.vlm.run import Record, RunnerOutcome, check_paths, log_tail, run_child

SCRIPT = Path(__file__).resolve().parent / "script.py"
ENDPOINT = "in-process: VLMModel.generate"
IN_PROCESS = "none: in-process (the wrapper's own calls, no server)"


def set_files(folder: Path, n: int) -> tuple[Path, Path]:
    """A set's records and log in the run folder."""
    return folder / f"vlm-audit-set{n}.jsonl", folder / f"vlm-audit-set{n}.log"


def command(cfg: VlmAuditConfig, records: Path, start: int) -> list[str]:
    return [
        cfg.python,
        str(SCRIPT),
        "--wrapper-dir",
        str(cfg.wrapper_dir.resolve()),
        "--model-path",
        str(cfg.model_path),
        "--dataset-path",
        str(cfg.dataset_path),
        "--records",
        str(records),
        "--start",
        str(start),
        "--count",
        str(cfg.samples),
        "--answer-tokens",
        str(cfg.answer_tokens),
    ]


def run_set(
    cfg: VlmAuditConfig, folder: Path, n: int, on_probe: Callable[[AnswerProbe], None]
) -> list[AnswerProbe]:
    """Set ``n`` (1 or 2) in a child of its own; its answers, as the child wrote them."""
    records, log = set_files(folder, n)
    outcome = RunnerOutcome()
    probes: list[AnswerProbe] = []

    def on_line(line: Record) -> None:
        if line.get("type") == "probe":
            probe = AnswerProbe.model_validate(line)
            probes.append(probe)
            on_probe(probe)

    run_child(
        command(cfg, records, (n - 1) * cfg.samples),
        records,
        log,
        on_line,
        outcome,
        python=cfg.python,
        timeout_s=cfg.timeout_s,
    )
    if not outcome.started:
        raise TargetError(
            f"the audit's set {n} failed before its first answer (exit {outcome.exit_code}): "
            f"{log_tail(log)}",
            hint=f"see {log}",
        )
    if not outcome.ended and n == 1 and not probes:
        raise TargetError(f"the audit's set {n} stopped: {log_tail(log)}", hint=f"see {log}")
    return probes


def audit_vlm(
    cfg: VlmAuditConfig,
    *,
    provenance: Provenance,
    folder: Path,
    on_probe: Callable[[AnswerProbe], None] = lambda p: None,
) -> AuditReport:
    """Judge ``cfg``'s wrapper against hard-coded answers; save and return ``audit.json``."""
    check_paths(cfg.wrapper_dir, cfg.model_path, cfg.dataset_path)
    t0 = time.monotonic()
    first_probes = run_set(cfg, folder, 1, on_probe)
    first = count_set(first_probes, cfg.spec)
    calls = len(first_probes)
    second: SetCount | None = None
    if first.splits:
        second_probes = run_set(cfg, folder, 2, on_probe)
        calls += len(second_probes)
        second = count_set(second_probes, cfg.spec) if second_probes else None
    rule = verdict(first, second, cfg.spec)
    rule.evidence["answer_tokens"] = cfg.answer_tokens
    if cfg.non_official:
        rule.evidence["non_official"] = dict(cfg.non_official)
    rep = AuditReport(
        provenance=provenance,
        url="",
        endpoint=ENDPOINT,
        wall_s=time.monotonic() - t0,
        requests=calls,
        counters_note=IN_PROCESS,
        rules=[rule],
    )
    rep.save(folder)
    return rep
