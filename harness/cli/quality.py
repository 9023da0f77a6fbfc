"""``harness quality``: MMLU-Pro / IFEval / GPQA-Diamond the way the grader scores them.

Special beside the kinds' one front end (harness/cli/kind_command.py): ``--quality-only``
(the gate's spelling of ``--only``), the resume hint its console hooks print on Ctrl-C,
and lm-eval's own logging with ``-v``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from harness.cli.front import SERVER_URL, Front, KindRun, Outcome, url_target

if TYPE_CHECKING:
    from harness.quality.hooks import QualityHooks


def _flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(  # one spelling for both commands: harness gate takes this one
        "--quality-only",
        dest="only",
        metavar="NAMES",
        help="the same as --only, as harness gate spells it (default: all in the profile)",
    )


def _hooks(run: KindRun) -> object:
    from harness.quality.console import ConsoleHooks
    from harness.quality.resume import RESUME_ANSWERS

    # a --fresh run's answers were stored without asking who the server is: reuse them all
    again = "" if run.cfg.resume else f" {RESUME_ANSWERS}"
    hint = f"harness quality --url {run.args.url} --out {run.ctx.folder}{again}"
    return ConsoleHooks(run.ctx.console, resume_hint=hint)


def _measure(run: KindRun, hooks: QualityHooks) -> Outcome:
    from harness.quality.core import measure_quality

    verbose = bool(getattr(run.args, "verbose", 0))
    return Outcome(
        measure_quality(run.cfg, provenance=run.ctx.provenance, hooks=hooks, verbose=verbose)
    )


FRONT = Front(
    summary="MMLU-Pro / IFEval / GPQA-Diamond (or the profile's gate) via lm-eval",
    help="MMLU-Pro / IFEval / GPQA-Diamond via lm-eval, as the grader runs them",
    description="Score the quality gates through lm-eval 0.4.11 exactly as the grader does "
    "(official mode). Non-official settings are recorded as such in quality.json.",
    target=url_target(SERVER_URL, required=True, checked=False),
    flags=_flags,
    hooks=_hooks,
    measure=_measure,
)
