"""``harness latency``: the grader's latency buckets (official) and a strict mode beside them.

What is special beside the kinds' one front end (harness/cli/kind_command.py):
``--self-test`` (the harness's own timing error, harness/cli/selftest.py), ``--repeats``
(pooled report and the between-run spread), ``--resume`` / ``--force`` (an interrupted
run finished in its folder) and the resume hint its console hooks print on Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from rich.console import Console

from harness.cli.common import positive_float, positive_int
from harness.cli.front import Front, KindRun, Outcome
from harness.errors import EXIT_TARGET
from harness.latency.config import LatencyOverrides
from harness.latency.repeats_resume import RepeatsResume, guard_repeats
from harness.latency.resume import FORCE, RESUME, guard_folder
from harness.target import Target, ledger_argv

if TYPE_CHECKING:
    from harness.latency.console import ConsoleHooks


def _flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        help="run the whole procedure N times: repeat-i/ folders, a pooled latency.json and "
        "the between-run spread in latency_repeats.json (harness compare uses it)",
    )
    p.add_argument(
        "--self-test", action="store_true", help="measure the harness's own timing error"
    )
    p.add_argument(
        "--st-ttft-ms",
        type=positive_float,
        default=50.0,
        metavar="MS",
        help="self-test: simulator TTFT in ms",
    )
    p.add_argument(
        "--st-itl-ms",
        type=positive_float,
        default=10.0,
        metavar="MS",
        help="self-test: simulator ITL in ms",
    )
    p.add_argument(
        "--st-output-tokens", type=positive_int, default=128, help="self-test: tokens per request"
    )
    p.add_argument(
        RESUME,
        action="store_true",
        help="finish an interrupted run in its --out folder: keep the buckets it measured to "
        "the end, measure the rest (a bucket cut in the middle again, whole); with --repeats "
        "N, keep the repetitions measured to the end and finish the rest",
    )
    p.add_argument(
        FORCE, action="store_true", help="overwrite a latency.json already in the --out folder"
    )


def _self_test(args: argparse.Namespace) -> int | None:
    if not args.self_test:
        return None
    from harness.cli.selftest import run_self_test_cli

    return run_self_test_cli(args)


def _check(args: argparse.Namespace) -> object:
    """Usage errors before a run folder is made; the partial run ``--resume`` finishes (a
    partial report, or what an interrupted ``--repeats`` run left)."""
    if args.repeats > 1:
        return guard_repeats(args.out, args.repeats, resume=args.resume, force=args.force)
    return guard_folder(args.out, resume=args.resume, force=args.force)


def _hooks(run: KindRun) -> object:
    from harness.latency.console import ConsoleHooks
    from harness.latency.resume import resume_command

    target = Target(folder=run.ctx.folder, url=run.args.url)
    profile = run.args.profile or run.ctx.profile.name
    args = run.args
    ledger = ledger_argv(args.name, args.note, args.experiment)
    repeats = ["--repeats", str(args.repeats)] if args.repeats > 1 else []
    again = resume_command(target, LatencyOverrides.from_args(args), profile, ledger + repeats)
    return ConsoleHooks(run.ctx.console, resume_hint=again)


def _measure(run: KindRun, hooks: ConsoleHooks) -> Outcome:
    from harness.latency.core import measure_latency, measure_latency_repeats
    from harness.latency.resume import record_in, resume_from

    cfg, state, ctx = run.cfg, None, run.ctx
    repeats = int(run.args.repeats)
    if repeats == 1 and run.prepared is not None:
        resumed = resume_from(cfg, run.prepared, ctx.folder)
        cfg, state = resumed.cfg, resumed.state
        record_in(ctx.provenance, run.prepared, resumed.record)
        hooks.resuming(resumed.record)
    if repeats == 1:
        return Outcome(
            asyncio.run(
                measure_latency(
                    cfg, provenance=ctx.provenance, folder=ctx.folder, hooks=hooks, state=state
                )
            )
        )
    pooled, summary = asyncio.run(
        measure_latency_repeats(
            cfg,
            repeats,
            provenance=ctx.provenance,
            folder=ctx.folder,
            hooks=hooks,
            resume=run.prepared if isinstance(run.prepared, RepeatsResume) else None,
        )
    )

    def spread(console: Console) -> None:
        from harness.latency.repeats import render_repeats

        render_repeats(console, summary)

    return Outcome(
        pooled,
        heading=f"[bold]pooled over {repeats} repeats[/]",
        more=spread,
        beside={"repeats": summary},
    )


def _failure_line(report: Any, rc: int) -> str | None:
    """A run that failed at the target ends with one line saying why."""
    from harness.latency.console import target_failure

    return target_failure(report) if rc == EXIT_TARGET else None


FRONT = Front(
    summary="latency buckets, speedup and score (official | strict | both)",
    flags=_flags,
    early=_self_test,
    check=_check,
    hooks=_hooks,
    measure=_measure,
    failure_line=_failure_line,
    json_exclude=frozenset({"requests"}),
)
