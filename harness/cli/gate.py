"""``harness gate``: PASS / FAIL / INCOMPLETE over a run folder, a live server, or an image."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from harness.cli.common import add_common, http_url, make_console, print_json
from harness.errors import EXIT_INCOMPLETE, ConfigError, UsageError
from harness.gate.console import ConsoleGateHooks
from harness.gate.image_id import GateImageOverrides, judged_image_id, resolve_image_id
from harness.gate.judge import Recorded, folder_profile, recorded_run
from harness.gate.options import add_gate_options, options_from_args
from harness.gate.orchestrate import (
    GatePlan,
    StepsRun,
    check_usage,
    conclude,
    exit_code,
    measured,
    run_steps,
    step_names,
    steps_for,
)
from harness.gate.render import render_gate
from harness.profiles import Profile, load_profile
from harness.provenance import Provenance, redact_argv
from harness.report.ledger import record_run
from harness.run_folder import new_run_folder

SKIPPABLE = (*step_names("server"), *step_names("image"))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("gate", help="PASS / FAIL / INCOMPLETE verdict with reasons and risk flags")
    p.add_argument(
        "run_dir",
        nargs="?",
        help="a run folder to judge (reads its reports, under the profile they were measured with)",
    )
    p.add_argument(
        "--url",
        type=http_url,
        metavar="URL",
        help="measure this server (the profile's steps) into a new run folder, then judge"
        " (default: none; give one of RUN_DIR, --url, --image)",
    )
    p.add_argument(
        "--image",
        metavar="NAME[:TAG]",
        help="run this image offline, measure it, and judge it with the package rules"
        " (default: none; give one of RUN_DIR, --url, --image)",
    )
    p.add_argument("--strict", action="store_true", help="risk flags fail the gate too")
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="measure the later steps even if a required check failed",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=SKIPPABLE,
        metavar="STEP",
        help=f"leave a step out, repeatable ({', '.join(SKIPPABLE)}); the verdict is then "
        "INCOMPLETE and names it (default: none)",
    )
    add_gate_options(p)
    GateImageOverrides.add_arguments(p)
    add_common(p)
    p.set_defaults(func=run)


def _profile(args: argparse.Namespace) -> Profile:
    """The folder's profile for ``gate RUN_DIR`` (a ``--profile`` that disagrees is an error),
    else ``--profile`` or the default."""
    given = load_profile(args.profile) if args.profile else None
    if not args.run_dir:
        return given or load_profile()
    recorded = folder_profile(Path(args.run_dir))
    if recorded is None:
        return given or load_profile()
    if given is not None and given.name != recorded:
        raise UsageError(
            f"{args.run_dir} was measured under profile {recorded!r}, not {given.name!r} "
            f"(--profile {args.profile})",
            hint=f"drop --profile to judge it as {recorded}",
        )
    if given is not None:
        return given
    try:
        return load_profile(recorded)
    except ConfigError as err:  # not under tasks/profiles/: measured with a profile file
        raise ConfigError(
            f"{args.run_dir} was measured under profile {recorded!r}: {err.message}",
            hint="pass --profile PATH.toml, the profile file it was measured with",
        ) from None


def _check_skips(profile: Profile, skip: frozenset[str], image: bool, measure: bool) -> None:
    """A ``--skip`` names a step this gate would run (under this profile, with or without
    --image), and a gate that measures (``measure``) keeps one; said before a run folder is
    made."""
    steps = [
        k.name
        for k in (*(steps_for(profile, "image") if image else ()), *steps_for(profile, "server"))
    ]
    odd = sorted(skip - set(steps))
    if odd:
        raise UsageError(
            f"--skip {', '.join(odd)}: not a step of this gate (profile {profile.name})",
            hint=f"its steps: {', '.join(steps) or 'none'}",
        )
    if measure and steps and not set(steps) - skip:
        raise UsageError(
            f"--skip {', '.join(sorted(skip))}: no step of this gate is left to measure",
            hint="judge a folder measured before with harness gate RUN_DIR",
        )


def _measure_image(image: str, plan: GatePlan, hooks: ConsoleGateHooks) -> StepsRun:
    # the container's steps (docker, the manifest's GETs) are imported only to measure one:
    # judging a folder stays light (tests/unit/test_light_judging.py)
    from harness.gate.image import measure_image

    return measure_image(image, plan, hooks)


def run(args: argparse.Namespace) -> int:
    modes = [m for m in (args.run_dir, args.url, args.image) if m]
    if len(modes) != 1:
        raise UsageError(
            "give exactly one of RUN_DIR, --url or --image",
            hint="e.g. harness gate reports/2026…-latency",
        )
    if args.run_dir and not Path(args.run_dir).is_dir():
        raise UsageError(
            f"{args.run_dir} is not a run folder", hint="pass a folder under reports/ or use --url"
        )
    if args.run_dir and args.out is not None:
        # a folder is judged where it lies: gate.json goes beside the reports it read
        raise UsageError(
            f"--out {args.out}: gate RUN_DIR writes gate.json into {args.run_dir}",
            hint="remove --out (or copy the folder first and gate the copy)",
        )
    profile = _profile(args)
    console = make_console(args)
    prov = Provenance(
        profile=profile.name,
        command_line=redact_argv(list(getattr(args, "argv", []))),
        url=args.url,
        name=args.name,
        note=args.note,
        experiment=args.experiment,
    )
    image = bool(args.image)
    skip = frozenset(args.skip)
    _check_skips(profile, skip, image, measure=not args.run_dir)
    options = options_from_args(args)
    given = GateImageOverrides.from_args(args).image_id
    image_id = resolve_image_id(given, options) if given else None
    check_usage(profile, options)  # said before a run folder is made
    # a folder made for this gate, removed again when nothing was measured into it
    fresh = not args.run_dir and not (args.out is not None and Path(args.out).exists())
    folder = Path(args.run_dir) if args.run_dir else new_run_folder(args.out, args.name, "gate")
    # gate RUN_DIR keeps what the gate that measured the folder recorded (--skip, …)
    recorded = recorded_run(folder) if args.run_dir else Recorded()
    plan = GatePlan(
        url=args.url or "",
        folder=folder,
        profile=profile,
        options=options,
        skip=skip,
        keep_going=args.keep_going,
        name=args.name,
        note=args.note,
        experiment=args.experiment,
    )
    ran = StepsRun(not_run=dict(recorded.not_run))
    if not args.run_dir:
        hooks = ConsoleGateHooks(console, profile=profile.name, folder=str(folder))
        # with --json, stdout carries only the verdict: the steps' tables go to stderr
        out = contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext()
        with out:
            ran = run_steps(plan, hooks) if args.url else _measure_image(args.image, plan, hooks)
        if not measured(folder):
            if not args.json:  # stdout; the step's error (stderr) said why
                console.print("no verdict: nothing was measured (no gate.json, no ledger row)")
            return _no_verdict(folder, ran.rc, fresh=fresh)
    elif recorded.kept():
        console.print(f"[dim]kept from the gate that measured it: {'; '.join(recorded.kept())}[/]")
    report = conclude(
        folder,
        profile,
        prov,
        strict=args.strict or recorded.strict,
        image=image or recorded.image,
        skipped=sorted(plan.skip | set(recorded.skipped)),
        not_run=ran.not_run,
        image_id=judged_image_id(folder, image_id),
    )
    record_run(folder, args.name, args.note)
    render_gate(console, report, str(folder), judged_as=profile.title)
    if args.json:
        print_json(report)
    return exit_code(report, ran.rc)


def _no_verdict(folder: Path, rc: int, *, fresh: bool) -> int:
    """A gate that measured nothing (its error said why) judges nothing: no gate.json, no
    ledger row, and the folder made for it is removed again."""
    if fresh and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return rc or EXIT_INCOMPLETE
