"""``harness vlm audit``'s core: the wrapper asked about changed inputs, one verdict out.

The first set (the dataset's first ``samples`` rows) runs in the participant's Python
(harness/vlm/audit/script.py, a child like the benchmark runner); when it splits
(harness/vlm/audit/judge.py), the child is told to ask a second, independent set (the next
rows) before the rule may fail. The verdict goes into ``audit.json`` (harness/rule_report.py),
written by the report class the caller names (``harness vlm audit``: the audit kind's own,
so the file is the one ``harness gate`` judges like any audit); every answer stays in
``vlm-audit-records.jsonl`` beside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from harness.errors import TargetError
from harness.provenance import Provenance
from harness.rule_report import RuleReport
from harness.vlm.audit.config import VlmAuditConfig
from harness.vlm.audit.judge import AnswerProbe, SetCount, count_set, verdict
from harness.vlm.run import (
    Record,
    RunnerOutcome,
    check_paths,
    child_argv,
    log_tail,
    run_child,
)

SCRIPT = Path(__file__).resolve().parent / "script.py"
RECORDS = "vlm-audit-records.jsonl"
LOG = "vlm-audit.log"
ENDPOINT = "in-process: VLMModel.generate"
IN_PROCESS = "none: in-process (the wrapper's own calls, no server)"
SECOND = "second"  # the script's cue to ask a second set (harness/vlm/audit/script.py)
STOP = "stop"


def command(cfg: VlmAuditConfig, records: Path) -> list[str]:
    paths = (cfg.wrapper_dir, cfg.model_path, cfg.dataset_path, records)
    return [
        *child_argv(cfg.python, SCRIPT, *paths),
        "--count",
        str(cfg.samples),
        "--answer-tokens",
        str(cfg.answer_tokens),
    ]


def audit_vlm(
    cfg: VlmAuditConfig,
    *,
    provenance: Provenance,
    folder: Path,
    on_probe: Callable[[AnswerProbe], None] = lambda p: None,
    report: type[RuleReport],
) -> RuleReport:
    """Judge ``cfg``'s wrapper against hard-coded answers; save and return ``audit.json``
    as a ``report`` (a :class:`RuleReport`, or the audit kind's class that extends it).

    One child asks the first set; when it splits, the same child (the model loaded once)
    asks the second. A child that dies before its first answer is a TargetError (exit 3)."""
    check_paths(cfg.wrapper_dir, cfg.model_path, cfg.dataset_path)
    t0 = time.monotonic()
    sets: dict[int, list[AnswerProbe]] = {1: [], 2: []}
    counts: dict[int, SetCount] = {}
    asked_second = False

    def on_line(line: Record) -> None:
        if line.get("type") == "probe":
            probe = AnswerProbe.model_validate(line)
            sets[probe.set_index].append(probe)
            on_probe(probe)

    def reply(line: Record) -> str | None:
        nonlocal asked_second
        if line.get("type") != "set_end":
            return None
        n = int(line.get("set_index", 1))
        counts[n] = count_set(sets[n], cfg.spec)
        if n == 1 and counts[1].splits:
            asked_second = True
            return SECOND
        return STOP if n == 1 else None

    outcome = RunnerOutcome()
    records, log = folder / RECORDS, folder / LOG
    run_child(
        command(cfg, records),
        records,
        log,
        on_line,
        outcome,
        python=cfg.python,
        timeout_s=cfg.timeout_s,
        reply=reply,
    )
    if not sets[1]:
        raise TargetError(
            f"the audit stopped before its first answer (exit {outcome.exit_code}): "
            f"{log_tail(log)}",
            hint=f"see {log}",
        )
    first = counts.get(1) or count_set(sets[1], cfg.spec)
    second: SetCount | None = None
    if asked_second and sets[2]:
        second = counts.get(2) or count_set(sets[2], cfg.spec)
    rule = verdict(first, second, cfg.spec)
    rule.evidence["answer_tokens"] = cfg.answer_tokens
    if cfg.non_official:
        rule.evidence["non_official"] = dict(cfg.non_official)
    if not outcome.ended:
        rule.evidence["stopped"] = f"exit {outcome.exit_code}: {log_tail(log)}"
    rep = report(
        provenance=provenance,
        url="",
        endpoint=ENDPOINT,
        wall_s=time.monotonic() - t0,
        requests=len(sets[1]) + len(sets[2]),
        counters_note=IN_PROCESS,
        rules=[rule],
        complete=outcome.ended,
    )
    rep.save(folder)
    return rep
