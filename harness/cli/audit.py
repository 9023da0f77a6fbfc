"""``harness audit``: the contest's rules, one verdict each with its evidence (docs/audit.md).

Special beside the kinds' one front end (harness/cli/kind_command.py): its help, the
per-request samples and quality items left out of ``--json`` (they are in audit.json), and
``--resume`` (an interrupted audit finished in its folder: harness/audit/resume.py).
"""

from __future__ import annotations

import argparse

import harness.audit_catalogue as audit_catalogue
from harness.audit.hooks import AuditHooks
from harness.audit.resume import RESUME, guard_folder
from harness.cli.front import Front, KindRun, Outcome
from harness.kinds.record import RunEnv


def _flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        RESUME,
        action="store_true",
        help="finish an interrupted audit in its --out folder: keep every request it "
        "measured, send only the rest (the server's counters are then left out)",
    )


def _check(args: argparse.Namespace) -> object:
    """The partial audit ``--resume`` finishes, checked before a run folder is made."""
    return guard_folder(args.out, resume=args.resume)


def _measure(run: KindRun, hooks: AuditHooks) -> Outcome:
    from harness.audit.core import finish
    from harness.audit.core import run as audit
    from harness.audit.resume import resumed

    ctx = run.ctx
    env = RunEnv(provenance=ctx.provenance, folder=ctx.folder, hooks=hooks)
    if run.prepared is None:
        return Outcome(audit(run.cfg, env))
    return Outcome(finish(resumed(run.cfg, run.prepared), env, run.prepared))


def rules_summary() -> str:
    """The command's line in ``harness --help``: every rule harness audit judges, in the
    catalogue's order (harness/audit_catalogue.py)."""
    titles = [e.title for e in audit_catalogue.entries() if not e.in_process]
    return f"the contest's rules: {', '.join(titles)}"


def rules_description() -> str:
    """The rules ``harness audit --help`` names: those it judges, then those judged
    elsewhere (in-process)."""
    entries = audit_catalogue.entries()
    here = ", ".join(e.name for e in entries if not e.in_process)
    elsewhere = ", ".join(e.name for e in entries if e.in_process)
    return f"Its rules: {here}" + (f" ({elsewhere}: harness vlm audit)" if elsewhere else "") + "."


def front() -> Front:
    return Front(
        summary=rules_summary(),
        help="check the contest's rules against a server, with the grader's own client",
        description="Sends the grader's repeated latency prompt interleaved with controls of "
        "the same token length (one word swapped; a unique head) and the quality graders' "
        "items interleaved with light paraphrases through the grader's client, reads the "
        "server's counters, and judges each rule of the profile's [audit]: pass, fail or "
        "inconclusive, with its evidence. "
        + rules_description()
        + " Exit 0: no rule fails; 1: a rule fails; 3: a rule could not be judged (its "
        "requests failed, or its timings were too noisy).",
        json_exclude=frozenset({"samples", "paraphrases"}),
        flags=_flags,
        check=_check,
        measure=_measure,
    )


def __getattr__(name: str) -> Front:
    # ``FRONT`` is built when asked for, so its help lists the catalogue as it is
    if name == "FRONT":
        return front()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
